/**
 * The daemon's log: one line per entry to stderr and to `$VIGIL_HOME/vigil.log`, every line through
 * the shield. Stdout is never written here (it belongs to protocols in `native-host` and `mcp`).
 * Design: docs/design.md §1.
 */
import { appendFileSync } from "node:fs";
import { envConfig } from "./config.js";

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

export function createLogger(options: { file?: string; shield?: Redactor; level?: Level; stderr?: boolean }): Logger {
  const min = ORDER[options.level ?? envConfig().VIGIL_LOG_LEVEL ?? "info"];
  const write = (level: Level, message: string, fields?: Record<string, unknown>) => {
    if (ORDER[level] < min) return;
    const extra = fields && Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : "";
    const raw = `${new Date().toISOString()} ${level.toUpperCase()} ${message}${extra}\n`;
    const line = options.shield ? options.shield.text(raw) : raw;
    if (options.stderr !== false) process.stderr.write(line);
    if (options.file) {
      try {
        appendFileSync(options.file, line, { mode: 0o600 });
      } catch {
        // A log that cannot be written must not stop the daemon.
      }
    }
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
  };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** Normalise anything thrown into an Error (catch `unknown` once, here). */
export function toError(value: unknown): Error {
  if (value instanceof Error) return value;
  return new Error(typeof value === "string" ? value : JSON.stringify(value));
}
