/** `command`: a shell command polled until its condition (by default: exit 0) holds (design.md §3). */

import { OUTPUT_TAIL_BYTES } from "../../../shared/output-tail.js";
import { EXIT_ZERO } from "../../../shared/schemas/conditions.js";
import { type CommandSource, CommandSourceSchema } from "../../../shared/schemas/sources.js";
import { rewriteForShell } from "../secrets/references.js";
import { sandboxedCommand } from "./codex-sandbox.js";
import type { PollProbe } from "./probe.js";
import { runShell, Tail, validateCwd } from "./run-shell.js";
import { commandWaitTiming } from "./timing.js";

function parseJson(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    return undefined;
  }
}

/** Characters of a command's output an observation and an event keep. */
const EVENT_CHARS = 16_000;

export const commandProbe: PollProbe<CommandSource> = {
  kind: "command",
  mode: "poll",
  schema: CommandSourceSchema,
  limitGroups: ["command", "monitor"],
  defaultName: (source) => source.command.slice(0, 200),
  describe: (source) => `\`${source.command}\``,
  timing: (input) => commandWaitTiming(input),
  secretText: (source) => source.command,
  condition: (source) => source.condition ?? EXIT_ZERO,
  validate: (source) => validateCwd(source.cwd),

  async check(source, context) {
    const script = rewriteForShell(source.command);
    const command = context.sandbox ? sandboxedCommand(script, context.cwd, context.sandbox) : script;
    const result = await runShell(command, {
      cwd: context.cwd,
      env: context.env,
      timeoutMs: context.timeoutMs,
      signal: context.signal,
      keepChars: OUTPUT_TAIL_BYTES,
    });
    if (result.unrunnable) {
      const why = result.error ?? `exit ${result.exitCode}`;
      return { outcome: "error", unrunnable: true, error: `${why}${result.output ? `: ${result.output}` : ""}` };
    }
    // The check was lost on the way (the spawner died under it): an ordinary check error, never an exit code.
    if (result.error !== null) return { outcome: "error", unrunnable: false, error: result.error };
    const killed = result.timedOut ? `\n[check ran over ${context.timeoutMs / 1000}s and was killed]` : "";
    const output = `${result.output}${killed}`;
    // What an event holds stays as before; the check log keeps the longer tail (record-check.ts).
    const eventTail = new Tail(EVENT_CHARS);
    eventTail.push(output);
    const observation = {
      exitCode: result.exitCode,
      stdout: result.stdout,
      stderr: result.stderr,
      output: eventTail.toString(),
      json: parseJson(result.stdout),
      timedOut: result.timedOut,
    };
    return {
      outcome: "observed",
      observation,
      eventText: observation.output || `(exit ${result.exitCode}, no output)`,
      output: { exitCode: result.exitCode, text: output },
    };
  },
};
