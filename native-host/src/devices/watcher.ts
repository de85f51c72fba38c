/**
 * The inotify watch on a device's spool (design.md §5): a second long-lived session over the held-open
 * master that runs the fixed WATCH script. Each line it prints only means "collect now": its text is
 * never read. Its stdin stays open for as long as the watch should run; when it closes (stop, or
 * the daemon died) the script ends inotifywait on the device.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { NO_INOTIFY } from "./listing.js";
import { lastLine } from "./ssh.js";

export interface WatchHandlers {
  /** The device printed a line: something changed in its spool (or the watch was just set up). */
  line: () => void;
  /** The watch ended by itself; `noInotify` when the device has no inotifywait. */
  end: (noInotify: boolean, why: string) => void;
}

export interface SpoolWatch {
  stop(): void;
}

/** Starts `program args` (ssh running WATCH_SCRIPT) and reports its lines and its end. */
export function watchSpool(program: string, args: string[], on: WatchHandlers): SpoolWatch {
  const child: ChildProcess = spawn(program, args, { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  let ended = false;
  const finish = (code: number | null, why: string) => {
    if (ended) return;
    ended = true;
    on.end(code === NO_INOTIFY, lastLine(stderr) ?? why);
  };
  child.stdin?.on("error", () => undefined);
  child.stdout?.on("data", (chunk: Buffer) => {
    if (!ended && chunk.includes(0x0a)) on.line();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-4096);
  });
  child.on("error", (error) => finish(null, `ssh: ${error.message}`));
  child.on("close", (code, signal) => finish(code, `the watch ended (${code ?? signal})`));
  return {
    stop() {
      ended = true;
      // The master holds the client's pipes: closing our end of stdin is what ends the watch there.
      for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
      child.kill("SIGTERM");
    },
  };
}
