/**
 * Runs one shell command the way every check does: its own process group, a hard timeout and an
 * AbortSignal that both kill the whole group, the tails of stdout, stderr and both interleaved, and
 * a result object with flags instead of thrown exit codes. When the shell exits, what it left in its
 * group is killed too: a group is only ever killed by its leader's pid while that leader is not
 * reaped (or in the callback that reaped it), never later, when the pid may be someone else's.
 *
 * This is the hot path (one spawn per command check), so it uses node:child_process directly
 * rather than execa: measured on this machine, execa costs ~14 ms of the daemon's CPU per spawn
 * and a bare spawn ~7 ms (`node bench/spawn-cost.js`), which doubles how many checks a core can
 * run. Adapters and watches, which spawn rarely, keep execa.
 *
 * Cheaper still, and the default: the checks are forked by one long-lived helper,
 * `dist/vigil-spawner` (`spawner.ts`), so the daemon only writes a request to a pipe and reads the
 * result. Without the helper (not built, will not start, or dying over and over), checks spawn
 * from the daemon as before, logged once. `VIGIL_SPAWNER=off` forces that; `VIGIL_SPAWNER=PATH`
 * names another helper binary.
 * Design: docs/design.md §3, §8.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { statSync } from "node:fs";
import { envConfig } from "../base/config.js";
import { ValidationError } from "../base/errors.js";
import { defaultSpawnerPath, encodable, Spawner } from "./spawner.js";

export interface ShellResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved as printed. */
  output: string;
  timedOut: boolean;
  cancelled: boolean;
  /** The command could not be run at all: exit 126/127 or a spawn failure. */
  unrunnable: boolean;
  error: string | null;
  durationMs: number;
}

export interface ShellOptions {
  cwd: string;
  env?: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Characters of each stream kept (the tail). */
  keepChars?: number;
}

/** After a kill, how long to wait for the pipes to close (a grandchild that left the group may hold them). */
const CLOSE_GRACE_MS = 2000;

/**
 * SIGKILL to a child's whole process group (spawned `detached`, so the group id is its pid). Given
 * the ChildProcess, nothing is sent once Node has reaped it (`exitCode` or `signalCode` set): by
 * then its pid, and so the group id, may have been reused by an unrelated process. A bare pid is
 * the caller's word that the process is not reaped yet, or was reaped in this very callback.
 */
export function killProcessGroup(target: ChildProcess | number | undefined): void {
  const pid = typeof target === "number" ? target : target?.pid;
  if (pid === undefined) return;
  if (typeof target === "object" && (target.exitCode !== null || target.signalCode !== null)) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/**
 * Keeps the last `max` characters of a stream without holding all of it. What it returns depends
 * only on the text, never on how it was chunked: a trim keeps two characters more than `max`, room
 * for the final newline (`\r\n`) that toString strips before it cuts.
 */
export class Tail {
  #text = "";
  #cut = false;

  constructor(private readonly max: number) {}

  push(chunk: string): void {
    this.#text += chunk;
    if (this.#text.length > 2 * this.max + 2) {
      this.#text = this.#text.slice(this.#text.length - this.max - 2);
      this.#cut = true;
    }
  }

  /** The tail, with its final newline stripped (as a shell's `$(…)` would). */
  toString(): string {
    const text = this.#text.replace(/\r?\n$/, "");
    return this.#cut || text.length > this.max ? `…${text.slice(Math.max(0, text.length - this.max))}` : text;
  }
}

let spawner: Spawner | null | undefined;
let log: (message: string) => void = (message) => process.stderr.write(`vigil: ${message}\n`);

/**
 * Where runShell's helper comes from and where its notices go; the daemon passes its logger.
 * `path: null` turns the helper off (every check spawns from the daemon); `undefined` keeps the
 * default (`VIGIL_SPAWNER`, else `dist/vigil-spawner`). A running helper is stopped.
 */
export function configureSpawner(options: { log?: (message: string) => void; path?: string | null } = {}): void {
  if (options.log) log = options.log;
  if ("path" in options) {
    spawner?.stop();
    spawner = options.path === null ? null : options.path === undefined ? undefined : new Spawner(options.path, log);
  }
}

/** The helper in use (created on first call), or null when checks spawn from the daemon. */
export function currentSpawner(): Spawner | null {
  if (spawner === undefined) {
    const path = defaultSpawnerPath();
    if (path === null) {
      if (envConfig().VIGIL_SPAWNER !== "off")
        log("dist/vigil-spawner not found (not built?): command checks spawn from the daemon, at more CPU each");
      spawner = null;
    } else {
      spawner = new Spawner(path, (message) => log(message));
    }
  }
  return spawner && spawner.disabled === null ? spawner : null;
}

export async function runShell(command: string, options: ShellOptions): Promise<ShellResult> {
  const helper = currentSpawner();
  const cwd = options.cwd;
  if (helper === null || !encodable({ command, cwd, env: options.env })) return runShellDirect(command, options);
  const started = performance.now();
  const keep = options.keepChars ?? 16_000;
  const result = await helper.run({
    command,
    cwd,
    env: options.env,
    timeoutMs: options.timeoutMs,
    // Enough bytes for `keep` characters of UTF-8 (at most 3 bytes per UTF-16 unit); Tail cuts to chars.
    keepBytes: 3 * keep + 4,
    signal: options.signal,
  });
  if (result.notStarted) return runShellDirect(command, options);
  const text = (bytes: Buffer) => {
    const tail = new Tail(keep);
    tail.push(bytes.toString("utf8"));
    return tail.toString();
  };
  const spawnError = result.spawnError === null ? null : `Command could not start: spawn /bin/sh ${result.spawnError}`;
  return {
    exitCode: result.exitCode,
    stdout: text(result.stdout),
    stderr: text(result.stderr),
    output: text(result.output),
    timedOut: result.timedOut,
    cancelled: result.cancelled || (result.helperError !== null && options.signal?.aborted === true),
    unrunnable: spawnError !== null || result.exitCode === 126 || result.exitCode === 127,
    error: spawnError ?? (result.helperError === null ? null : `Command check lost: ${result.helperError}`),
    durationMs: performance.now() - started,
  };
}

/** The same check spawned from this process (the fallback, and the reference the helper is held to). */
export function runShellDirect(command: string, options: ShellOptions): Promise<ShellResult> {
  const started = performance.now();
  const keep = options.keepChars ?? 16_000;
  const stdout = new Tail(keep);
  const stderr = new Tail(keep);
  const all = new Tail(keep);
  let timedOut = false;
  let cancelled = false;

  return new Promise((resolve) => {
    let child: ChildProcess;
    let settled = false;
    let grace: NodeJS.Timeout | undefined;
    const finish = (exitCode: number | null, spawnError: Error | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      options.signal?.removeEventListener("abort", onAbort);
      resolve({
        exitCode,
        stdout: stdout.toString(),
        stderr: stderr.toString(),
        output: all.toString(),
        timedOut,
        cancelled,
        unrunnable: spawnError !== null || exitCode === 126 || exitCode === 127,
        error: spawnError ? `Command could not start: ${spawnError.message}` : null,
        durationMs: performance.now() - started,
      });
    };
    // After a kill, or once the shell has exited, a process that left the group may still hold a pipe.
    const startGrace = () => {
      grace ??= setTimeout(() => {
        child?.stdout?.destroy();
        child?.stderr?.destroy();
        finish(child?.exitCode ?? null, null);
      }, CLOSE_GRACE_MS);
    };
    const kill = () => {
      killProcessGroup(child); // nothing once the shell is reaped: its group was killed then
      startGrace();
    };
    const timer = setTimeout(() => {
      if (child && (child.exitCode !== null || child.signalCode !== null)) return; // it ended in time
      timedOut = true;
      kill();
    }, options.timeoutMs);
    const onAbort = () => {
      cancelled = true;
      kill();
    };

    try {
      child = spawn("/bin/sh", ["-c", command], {
        cwd: options.cwd,
        env: options.env ? { ...process.env, ...options.env } : process.env,
        detached: true, // its own process group, so a timeout kills its children too
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (error) {
      finish(null, error as Error);
      return;
    }
    child.stdout?.setEncoding("utf8").on("data", (text: string) => {
      stdout.push(text);
      all.push(text);
    });
    child.stderr?.setEncoding("utf8").on("data", (text: string) => {
      stderr.push(text);
      all.push(text);
    });
    child.once("error", (error) => finish(null, error));
    child.once("exit", () => {
      // Node reaped the shell just now, in this same callback, so its pid cannot have been reused
      // yet: what it left in its group dies now (the helper does the same while the shell is a
      // zombie), and the pid is never used again.
      killProcessGroup(child.pid);
      startGrace();
    });
    child.once("close", (code) => finish(code, null));
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
  });
}

/** A command's working folder must exist when the monitor is armed, not fail every check after. */
export function validateCwd(cwd: string | undefined): void {
  if (cwd === undefined) return;
  let isFolder = false;
  try {
    isFolder = statSync(cwd).isDirectory();
  } catch {
    isFolder = false;
  }
  if (!isFolder) throw new ValidationError(`source.cwd: Expected an existing folder, got ${cwd} (no such folder)`);
}
