/**
 * `command` adapter: runs an argv template (no shell) with the turn's text on stdin and its JSON in
 * the file named by VIGIL_WAKE_FILE. Exit 0 = delivered. This is how an agent CLI is resumed
 * headlessly (see examples/adapters/).
 * Design: docs/design.md §6.
 */
import { loadExeca } from "../../base/lazy-execa.js";
import { killProcessGroup } from "../../probes/run-shell.js";
import { type PushAdapter, tail, turnJson, turnText } from "./adapter.js";
import { writePrivateFile } from "./private-file.js";
import { whyNotStarted } from "./run-failure.js";

type CommandAdapter = { kind: "command"; argv: string[]; timeoutSeconds?: number };

export const DEFAULT_COMMAND_TIMEOUT_SECONDS = 600;

export function expandArgv(argv: string[], values: Record<string, string>): string[] {
  return argv.map((item) => item.replace(/\{([a-z_]+)\}/g, (whole, name: string) => values[name] ?? whole));
}

export const commandAdapter: PushAdapter<CommandAdapter> = {
  kind: "command",
  timeoutMs: (adapter) => (adapter.timeoutSeconds ?? DEFAULT_COMMAND_TIMEOUT_SECONDS) * 1000,

  async prepare() {
    await loadExeca();
  },

  async deliver(adapter, turn, context) {
    const wakeFile = writePrivateFile("wake.json", turnJson(turn));
    const file = wakeFile.path;
    const ids = turn.wakes.map((wake) => wake.id);
    const [program, ...args] = expandArgv(adapter.argv, {
      session: turn.sessionId,
      wake_id: ids[0] ?? "",
      wake_ids: ids.join(","),
      turn: String(turn.turn),
    });
    try {
      const execa = await loadExeca();
      const subprocess = execa(program as string, args, {
        input: turnText(turn),
        env: { VIGIL_WAKE_FILE: file, VIGIL_SESSION: turn.sessionId, VIGIL_WAKE_IDS: ids.join(",") },
        detached: true,
        all: true,
        reject: false,
        maxBuffer: 1_000_000,
      });
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        killProcessGroup(subprocess);
      }, this.timeoutMs(adapter));
      const abort = () => killProcessGroup(subprocess);
      context.signal.addEventListener("abort", abort, { once: true });
      const result = await subprocess;
      clearTimeout(timer);
      context.signal.removeEventListener("abort", abort);
      const output = typeof result.all === "string" && result.all !== "" ? tail(result.all) : null;
      if (result.exitCode === 0 && !timedOut) return { ok: true, output, via: "command" };
      const error = timedOut
        ? `the command ran over ${this.timeoutMs(adapter) / 1000}s and was killed`
        : result.exitCode === undefined
          ? `the command could not run: ${whyNotStarted(result, program as string)}\n${result.shortMessage}`
          : `the command exited with code ${result.exitCode}`;
      // A program that cannot be found will not appear by retrying quickly, but a person may fix it.
      return { ok: false, retry: true, error, output };
    } finally {
      wakeFile.remove();
    }
  },
};
