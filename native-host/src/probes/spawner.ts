/**
 * The cheap way to start command checks: one long-lived helper, `dist/vigil-spawner` (C source in
 * `native-host/spawner/spawner.c`), vforks each check so the daemon, a large Node process, never
 * does. The daemon writes the framed requests of one event-loop turn to the helper's stdin in one
 * write and reads framed results from its stdout (checks that end together come in one write);
 * nothing blocks its event loop. Semantics are `runShell`'s own: the helper keeps the tails, kills
 * the process group at the timeout, on a cancel and when the shell exits (always before it reaps
 * the shell, so never a reused pid), and reports spawn failures by errno. A request it cannot read
 * gets an 'E' answer (the check fails with its reason); every way the helper leaves kills its groups.
 * Secrets travel in the request's environment over the pipe, never in an argv.
 *
 * If the helper dies, every check in flight resolves with an error (their groups are killed when
 * their pid is known; on Linux each shell also gets SIGKILL from the kernel as the helper dies) and
 * the next check starts a new helper; after 5 deaths in a minute, or when
 * the binary is missing or will not start, checks go back to spawning from the daemon (logged once).
 * Design: docs/design.md §3.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants as fsConstants } from "node:fs";
import { constants as osConstants } from "node:os";
import { fileURLToPath } from "node:url";
import { envConfig } from "../base/config.js";

/** What the helper reports for one check (tails still raw bytes). */
export interface SpawnerResult {
  exitCode: number | null;
  signal: number | null;
  timedOut: boolean;
  /** A cancel (the AbortSignal) reached the check while it ran. */
  cancelled: boolean;
  /** errno name when /bin/sh could not be started (fork, pipe, chdir or exec failed). */
  spawnError: string | null;
  /** The helper died or stopped answering: the check's outcome is unknown. */
  helperError: string | null;
  /** The helper could not be started at all, so the check never ran (safe to run it another way). */
  notStarted: boolean;
  stdout: Buffer;
  stderr: Buffer;
  output: Buffer;
}

export interface SpawnerRequest {
  command: string;
  cwd: string;
  env?: Record<string, string>;
  timeoutMs: number;
  /** Bytes of each stream the helper keeps (the tail). */
  keepBytes: number;
  signal?: AbortSignal;
}

const FLAG_TIMED_OUT = 1;
const FLAG_SPAWN_FAILED = 2;
const FLAG_CANCELLED = 32;
/** How long past its own timeout and kill grace a check may go unanswered before the helper is restarted. */
const ANSWER_GRACE_MS = 5000;
const CLOSE_GRACE_MS = 2000;
const MAX_DEATHS = 5;
const DEATH_WINDOW_MS = 60_000;

const ERRNO_NAMES = new Map<number, string>(
  Object.entries(osConstants.errno).map(([name, value]) => [value as number, name]),
);

interface Pending {
  resolve: (result: SpawnerResult) => void;
  pid?: number;
  timer: NodeJS.Timeout;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/** Where the build puts the helper: `dist/vigil-spawner`, found from dist/ or from the sources. */
export function defaultSpawnerPath(): string | null {
  const override = envConfig().VIGIL_SPAWNER;
  if (override === "off") return null;
  if (override) return override;
  const candidates = [
    new URL("../../../vigil-spawner", import.meta.url), // dist/native-host/src/probes → dist/
    new URL("../../../dist/vigil-spawner", import.meta.url), // native-host/src/probes → dist/
  ];
  for (const candidate of candidates) {
    const path = fileURLToPath(candidate);
    try {
      accessSync(path, fsConstants.X_OK);
      return path;
    } catch {
      // Try the next.
    }
  }
  return null;
}

function encodeRun(id: number, request: SpawnerRequest): Buffer {
  const parts = [request.cwd, request.command];
  for (const [key, value] of Object.entries(request.env ?? {})) parts.push(`${key}=${value}`);
  const text = Buffer.from(`${parts.join("\0")}\0\0`, "utf8");
  const frame = Buffer.allocUnsafe(4 + 1 + 12 + text.length);
  frame.writeUInt32LE(1 + 12 + text.length, 0);
  frame.write("R", 4, "latin1");
  frame.writeUInt32LE(id, 5);
  frame.writeUInt32LE(Math.max(0, Math.min(0xffffffff, Math.round(request.timeoutMs))), 9);
  frame.writeUInt32LE(request.keepBytes, 13);
  text.copy(frame, 17);
  return frame;
}

function encodeCancel(id: number): Buffer {
  const frame = Buffer.allocUnsafe(9);
  frame.writeUInt32LE(5, 0);
  frame.write("C", 4, "latin1");
  frame.writeUInt32LE(id, 5);
  return frame;
}

/** Text that cannot cross the protocol (NUL, or `=` in a key): left to the direct spawn, which refuses it as before. */
export function encodable(request: Pick<SpawnerRequest, "command" | "cwd" | "env">): boolean {
  if (request.command.includes("\0") || request.cwd.includes("\0")) return false;
  for (const [key, value] of Object.entries(request.env ?? {})) {
    if (key === "" || key.includes("=") || key.includes("\0") || value.includes("\0")) return false;
  }
  return true;
}

export class Spawner {
  #child: ChildProcess | null = null;
  #pending = new Map<number, Pending>();
  #nextId = 1;
  #buffer: Buffer = Buffer.alloc(0);
  #outbox: Buffer[] = [];
  #deaths: number[] = [];
  #disabled: string | null = null;
  #stopped = new WeakSet<ChildProcess>();

  constructor(
    private readonly path: string,
    private readonly log: (message: string) => void,
  ) {}

  /** Why the helper is not used any more (null while it is). */
  get disabled(): string | null {
    return this.#disabled;
  }

  /** The helper's pid, while one runs (tests and benchmarks). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** How many checks in flight the helper has told the pid of (their groups die with it). */
  get knownGroups(): number {
    return [...this.#pending.values()].filter((pending) => pending.pid !== undefined).length;
  }

  run(request: SpawnerRequest): Promise<SpawnerResult> {
    const child = this.#ensure();
    const id = this.#nextId;
    this.#nextId = this.#nextId >= 0xfffffff0 ? 1 : this.#nextId + 1;
    return new Promise((resolve) => {
      const pending: Pending = {
        resolve,
        signal: request.signal,
        timer: setTimeout(() => this.#unanswered(id), request.timeoutMs + CLOSE_GRACE_MS + ANSWER_GRACE_MS),
      };
      this.#pending.set(id, pending);
      if (request.signal) {
        pending.onAbort = () => this.#write(encodeCancel(id));
        request.signal.addEventListener("abort", pending.onAbort, { once: true });
      }
      this.#write(encodeRun(id, request), child);
      if (request.signal?.aborted) pending.onAbort?.();
    });
  }

  /** Stops the helper (its running checks' groups are killed by it on end of input). */
  stop(): void {
    const child = this.#child;
    if (!child) return;
    this.#child = null;
    this.#stopped.add(child);
    child.stdin?.end();
    this.#failAll("vigil-spawner was stopped", false);
  }

  #ensure(): ChildProcess {
    if (this.#child) return this.#child;
    const child = spawn(this.path, [], { stdio: ["pipe", "pipe", "pipe"], env: process.env });
    this.#child = child;
    this.#buffer = Buffer.alloc(0);
    this.#outbox = [];
    child.unref();
    for (const stream of [child.stdin, child.stdout, child.stderr] as unknown as { unref?: () => void }[]) {
      stream?.unref?.();
    }
    child.stdin?.on("error", () => {
      // The exit handler reports it.
    });
    child.stdout?.on("data", (chunk: Buffer) => this.#onData(chunk));
    child.stderr?.setEncoding("utf8").on("data", (text: string) => this.log(`vigil-spawner: ${text.trim()}`));
    let ended = false;
    const gone = (why: string, notStarted: boolean) => {
      if (ended || this.#stopped.has(child)) return;
      ended = true;
      if (this.#child === child) this.#child = null;
      if (notStarted && this.#disabled === null) {
        this.#disabled = why;
        this.log(`${why}: command checks spawn from the daemon`);
      }
      this.#failAll(why, notStarted);
      if (!notStarted) this.#died(why);
    };
    child.once("error", (error) => gone(`vigil-spawner could not run: ${error.message}`, child.pid === undefined));
    child.once("exit", (code, signal) => gone(`vigil-spawner exited (${signal ?? `code ${code}`})`, false));
    return child;
  }

  /**
   * Frames written in one turn of the event loop go to the helper in one write: each write to its
   * pipe wakes it (a context switch on both sides), which cost the daemon more than the rest of a
   * check when hundreds start a second.
   */
  #write(frame: Buffer, child = this.#child): void {
    if (!child || child.stdin?.destroyed) return;
    if (this.#outbox.length === 0) setImmediate(() => this.#flush(child));
    this.#outbox.push(frame);
  }

  #flush(child: ChildProcess): void {
    if (child !== this.#child) return; // that helper is gone; its frames were dropped with it
    const frames = this.#outbox;
    this.#outbox = [];
    if (!child.stdin || child.stdin.destroyed || child.stdin.writableEnded || frames.length === 0) return;
    child.stdin.write(frames.length === 1 ? (frames[0] as Buffer) : Buffer.concat(frames));
  }

  #onData(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    let at = 0;
    const buffer = this.#buffer;
    while (buffer.length - at >= 5) {
      const length = buffer.readUInt32LE(at);
      if (buffer.length - at - 4 < length) break;
      const type = buffer[at + 4];
      const body = at + 5;
      if (type === 0x50 /* P */) {
        const pending = this.#pending.get(buffer.readUInt32LE(body));
        if (pending) pending.pid = buffer.readUInt32LE(body + 4);
      } else if (type === 0x44 /* D */) {
        this.#onDone(buffer.subarray(body, at + 4 + length));
      } else if (type === 0x45 /* E */ && length >= 5) {
        this.#onRefused(buffer.readUInt32LE(body), buffer.toString("utf8", body + 4, at + 4 + length));
      }
      at += 4 + length;
    }
    this.#buffer = at === buffer.length ? Buffer.alloc(0) : buffer.subarray(at);
  }

  #onDone(body: Buffer): void {
    const id = body.readUInt32LE(0);
    const exitCode = body.readInt32LE(4);
    const signal = body.readInt32LE(8);
    const flags = body.readUInt32LE(12);
    const errno = body.readInt32LE(16);
    let at = 24;
    const take = () => {
      const length = body.readUInt32LE(at);
      const bytes = body.subarray(at + 4, at + 4 + length);
      at += 4 + length;
      return bytes;
    };
    const stdout = take();
    const stderr = take();
    const output = take();
    this.#settle(id, {
      exitCode: exitCode < 0 ? null : exitCode,
      signal: signal > 0 ? signal : null,
      timedOut: (flags & FLAG_TIMED_OUT) !== 0,
      cancelled: (flags & FLAG_CANCELLED) !== 0,
      spawnError: flags & FLAG_SPAWN_FAILED ? (ERRNO_NAMES.get(errno) ?? `errno ${errno}`) : null,
      helperError: null,
      notStarted: false,
      stdout,
      stderr,
      output,
    });
  }

  /** The helper could not read a request (a bug on this side): that check fails with the reason. */
  #onRefused(id: number, reason: string): void {
    this.log(`vigil-spawner refused a request: ${reason}`);
    this.#settle(id, failed(`vigil-spawner refused the request: ${reason}`, false));
  }

  #settle(id: number, result: SpawnerResult): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    if (pending.onAbort) pending.signal?.removeEventListener("abort", pending.onAbort);
    pending.resolve(result);
  }

  #failAll(why: string, notStarted: boolean): void {
    for (const [id, pending] of [...this.#pending]) {
      if (pending.pid !== undefined) {
        try {
          process.kill(-pending.pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
      this.#settle(id, failed(why, notStarted));
    }
  }

  /** A check the helper never answered, long past its timeout: the helper is stuck; start over. */
  #unanswered(id: number): void {
    const child = this.#child;
    if (child && this.#pending.has(id)) {
      this.log("vigil-spawner did not answer a check past its timeout; restarting it");
      child.kill("SIGKILL"); // the exit handler fails every pending check
    } else {
      this.#settle(id, failed("vigil-spawner did not answer", false));
    }
  }

  #died(why: string): void {
    const now = Date.now();
    this.#deaths = [...this.#deaths.filter((at) => now - at < DEATH_WINDOW_MS), now];
    if (this.#deaths.length >= MAX_DEATHS && this.#disabled === null) {
      this.#disabled = `${why}; ${MAX_DEATHS} times in a minute`;
      this.log(`${this.#disabled}: command checks now spawn from the daemon`);
    } else {
      this.log(`${why}; the next check starts a new one`);
    }
  }
}

function failed(why: string, notStarted: boolean): SpawnerResult {
  return {
    notStarted,
    exitCode: null,
    signal: null,
    timedOut: false,
    cancelled: false,
    spawnError: null,
    helperError: why,
    stdout: Buffer.alloc(0),
    stderr: Buffer.alloc(0),
    output: Buffer.alloc(0),
  };
}
