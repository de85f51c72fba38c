/**
 * The daemon's log: one line per entry to stderr and to `$VIGIL_HOME/vigil.log`, every line through
 * the shield. Stdout is never written here (it belongs to protocols in `native-host` and `mcp`).
 * A flood cannot fill the disk: past 10 identical lines a minute the rest are counted, not written
 * (a count line follows when the minute is over), and the file is rotated to `vigil.log.1` when it
 * passes 10 MB, so the log takes at most about 20 MB.
 * Design: docs/design.md §1, §8.
 */
import { appendFileSync, renameSync, statSync } from "node:fs";
import { envConfig } from "./config.js";
import { forTerminal } from "./terminal-text.js";

export type Level = "debug" | "info" | "warn" | "error";

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Whatever hides secret values in a line (the shield, in the daemon). */
export interface Redactor {
  text(line: string): string;
}

const ORDER: Record<Level, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export interface LogLimits {
  /** Identical lines written per window; the rest are counted. */
  repeats: number;
  windowMs: number;
  /** The file is renamed to FILE.1 (replacing the last one) past this size. */
  maxFileBytes: number;
}

export const LOG_LIMITS: LogLimits = { repeats: 10, windowMs: 60_000, maxFileBytes: 10 * 1024 * 1024 };

export function createLogger(options: {
  file?: string;
  shield?: Redactor;
  level?: Level;
  stderr?: boolean;
  limits?: Partial<LogLimits>;
  now?: () => number;
}): Logger {
  const min = ORDER[options.level ?? envConfig().VIGIL_LOG_LEVEL ?? "info"];
  const limits = { ...LOG_LIMITS, ...options.limits };
  const now = options.now ?? Date.now;
  /** Per distinct line (level, message, fields): when its window began, and lines seen in it. */
  const seen = new Map<string, { level: Level; text: string; since: number; count: number }>();
  let settledAt = 0;
  let fileBytes: number | null = null;

  const emit = (at: number, level: Level, text: string) => {
    const line = `${new Date(at).toISOString()} ${level.toUpperCase()} ${text}\n`;
    // `vigil serve` on a terminal: a job's escape sequences in a line are shown, not acted on.
    if (options.stderr !== false) process.stderr.write(forTerminal(process.stderr, line));
    if (!options.file) return;
    try {
      fileBytes ??= sizeOf(options.file);
      if (fileBytes > 0 && fileBytes + line.length > limits.maxFileBytes) {
        renameSync(options.file, `${options.file}.1`);
        fileBytes = 0;
      }
      appendFileSync(options.file, line, { mode: 0o600 });
      fileBytes += Buffer.byteLength(line);
    } catch {
      // A log that cannot be written must not stop the daemon.
    }
  };

  /** Ends the windows that are over (at most once a second), writing how many lines each held back. */
  const settle = (at: number) => {
    if (at - settledAt < 1000) return;
    settledAt = at;
    for (const [key, entry] of seen) {
      if (at - entry.since < limits.windowMs) continue;
      seen.delete(key);
      const unwritten = entry.count - limits.repeats;
      if (unwritten > 0)
        emit(at, entry.level, `(${unwritten} more in ${limits.windowMs / 1000} s, not written) ${entry.text}`);
    }
  };

  const write = (level: Level, message: string, fields?: Record<string, unknown>) => {
    if (ORDER[level] < min) return;
    const extra = fields && Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : "";
    const text = options.shield ? options.shield.text(`${message}${extra}`) : `${message}${extra}`;
    const at = now();
    settle(at);
    const key = `${level} ${text}`;
    const entry = seen.get(key);
    if (entry) {
      entry.count += 1;
      if (entry.count > limits.repeats) return;
    } else if (seen.size < 10_000) {
      seen.set(key, { level, text, since: at, count: 1 });
    }
    emit(at, level, text);
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
  };
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** Normalise anything thrown into an Error (catch `unknown` once, here). */
export function toError(value: unknown): Error {
  if (value instanceof Error) return value;
  return new Error(typeof value === "string" ? value : JSON.stringify(value));
}

/**
 * Runs work nobody awaits (a timer's, a process's exit handler's) so that a failure is logged as
 * `what failed: …` rather than becoming an unhandled rejection that ends the daemon.
 */
export function inBackground(log: Logger, what: string, work: Promise<unknown>): void {
  work.catch((error: unknown) => log.error(`${what} failed: ${toError(error).message}`));
}
