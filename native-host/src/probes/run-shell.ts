/**
 * Runs one shell command the way every check does (STYLE §3): execa with `reject: false`, its own
 * process group, a hard timeout and an AbortSignal that both kill the whole group, and a result
 * object with flags instead of thrown exit codes.
 */
import { execa } from "execa";

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

const tail = (text: string, max: number) => (text.length > max ? `…${text.slice(text.length - max)}` : text);

export function killProcessGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

export async function runShell(command: string, options: ShellOptions): Promise<ShellResult> {
  const started = performance.now();
  const keep = options.keepChars ?? 16_000;
  const subprocess = execa("/bin/sh", ["-c", command], {
    cwd: options.cwd,
    env: options.env,
    extendEnv: true,
    detached: true, // its own process group, so a timeout kills its children too
    stdin: "ignore",
    all: true,
    reject: false,
    stripFinalNewline: true,
    maxBuffer: 1_000_000,
  });
  let timedOut = false;
  let cancelled = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killProcessGroup(subprocess.pid);
  }, options.timeoutMs);
  const onAbort = () => {
    cancelled = true;
    killProcessGroup(subprocess.pid);
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  const result = await subprocess;
  clearTimeout(timer);
  options.signal?.removeEventListener("abort", onAbort);

  const spawnFailed = result.failed && result.exitCode === undefined && !timedOut && !cancelled && !result.isTerminated;
  const exitCode = result.exitCode ?? null;
  const text = (value: unknown) => (typeof value === "string" ? value : "");
  return {
    exitCode,
    stdout: tail(text(result.stdout), keep),
    stderr: tail(text(result.stderr), keep),
    output: tail(text(result.all), keep),
    timedOut,
    cancelled,
    unrunnable: spawnFailed || exitCode === 126 || exitCode === 127,
    error: spawnFailed ? (result.shortMessage ?? "spawn failed") : null,
    durationMs: performance.now() - started,
  };
}
