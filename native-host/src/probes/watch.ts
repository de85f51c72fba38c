/** `watch`: a long-running command whose output lines become events (design.md §3). */
import { type WatchSource, WatchSourceSchema } from "../../../shared/schemas/sources.js";
import { loadExeca } from "../base/lazy-execa.js";
import { LineSplitter } from "../base/line-splitter.js";
import { rewriteForShell } from "../secrets/references.js";
import { sandboxedCommand } from "./codex-sandbox.js";
import type { StreamContext, StreamProbe } from "./probe.js";
import { killProcessGroup, validateCwd } from "./run-shell.js";
import { watchTiming } from "./timing.js";

export const WATCH_LINE_MAX = 2000;

export const watchProbe: StreamProbe<WatchSource> = {
  kind: "watch",
  mode: "stream",
  schema: WatchSourceSchema,
  limitGroups: ["command", "monitor"],
  defaultName: (source) => source.command.slice(0, 200),
  describe: (source) => `output of \`${source.command}\``,
  timing: watchTiming,
  secretText: (source) => source.command,

  validate: (source) => validateCwd(source.cwd),
  start(source, context) {
    void loadExeca().then((execa) => {
      if (context.signal.aborted) {
        context.onExit(null, "stopped before it started");
        return;
      }
      run(execa, source, context);
    });
  },
};

function run(execa: Awaited<ReturnType<typeof loadExeca>>, source: WatchSource, context: StreamContext) {
  const script = rewriteForShell(source.command);
  const command = context.sandbox ? sandboxedCommand(script, context.cwd, context.sandbox) : script;
  const subprocess = execa("/bin/sh", ["-c", command], {
    cwd: context.cwd,
    env: context.env,
    detached: true,
    stdin: "ignore",
    all: true,
    buffer: false,
    reject: false,
  });
  const splitter = new LineSplitter((line) => {
    if (line.trim() !== "") context.onLine(line);
  }, WATCH_LINE_MAX);
  subprocess.all?.setEncoding("utf8");
  subprocess.all?.on("data", (chunk: string) => splitter.push(chunk));
  const stop = () => killProcessGroup(subprocess); // not once it is reaped: its pid may be reused
  context.signal.addEventListener("abort", stop, { once: true });
  // `reject: false`: the process's end never rejects, it resolves with how it ended.
  void subprocess.then((result) => {
    context.signal.removeEventListener("abort", stop);
    splitter.end();
    const spawnFailed = result.exitCode === undefined && !result.isTerminated;
    const detail = spawnFailed
      ? `could not start: ${result.shortMessage}`
      : result.exitCode !== undefined
        ? `exited with code ${result.exitCode}`
        : `killed by ${result.signal ?? "a signal"}`;
    context.onExit(result.exitCode ?? null, detail);
  });
}
