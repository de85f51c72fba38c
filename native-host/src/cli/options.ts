/**
 * Reading the CLI's option values: every number and duration flag goes through one of these, so a
 * bad value is always a usage error (exit 2) worded the same way: "Expected --FLAG to be …, got …".
 * Design: docs/design.md §7.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { z } from "zod";
import { HOST_NAME } from "../../../shared/schemas/inputs.js";
import { formatZodError } from "../../../shared/schemas/zod-error.js";
import { CliError } from "../api/client.js";

/** The CLI's exit codes (printed in `vigil --help`). */
export const EXIT = { done: 0, failed: 1, usage: 2 } as const;

/** A mistake in the command line itself: one line, then where to read the usage; exit 2. */
export function usageError(message: string): CliError {
  return new CliError(message, EXIT.usage);
}

const shown = (raw: string) => (raw.trim() === "" ? "nothing" : raw);

/** A plain decimal, at least 0 ("5", "0.2"): what every seconds flag takes. */
const SECONDS = /^\d+(\.\d+)?$/;

export function parseSeconds(flag: string, raw: string): number {
  if (!SECONDS.test(raw)) throw usageError(`Expected ${flag} to be a number of seconds, got ${shown(raw)}`);
  return Number(raw);
}

export function optionalSeconds(flag: string, raw: string | undefined): number | undefined {
  return raw === undefined ? undefined : parseSeconds(flag, raw);
}

/** Any finite number, negative or fractional ("-3", "0.5", "1e3"): what the comparators take. */
export function parseNumber(flag: string, raw: string): number {
  const value = raw.trim() === "" ? Number.NaN : Number(raw);
  if (!Number.isFinite(value)) throw usageError(`Expected ${flag} to be a number, got ${shown(raw)}`);
  return value;
}

/** A whole number, within [min, max] when given. */
export function parseInteger(flag: string, raw: string, range?: readonly [number, number]): number {
  const value = /^-?\d+$/.test(raw.trim()) ? Number(raw) : Number.NaN;
  const inRange = range === undefined || (value >= range[0] && value <= range[1]);
  if (!Number.isSafeInteger(value) || !inRange) {
    const within = range ? ` ${range[0]}–${range[1]}` : "";
    throw usageError(`Expected ${flag} to be a whole number${within}, got ${shown(raw)}`);
  }
  return value;
}

/** A host name for team mode (`--host-name`): letters, digits, '.', '_', '-', at most 63. */
export function checkHostName(flag: string, raw: string): string {
  if (!HOST_NAME.test(raw)) {
    throw usageError(
      `Expected ${flag} to be a name of letters, digits, '.', '_' or '-' (1 to 63, starting with a letter or digit), got ${shown(raw)}`,
    );
  }
  return raw;
}

/** A working folder that exists, made absolute against this shell's folder (the daemon has its own). */
export function existingFolder(flag: string, raw: string | undefined, cwd = process.cwd()): string {
  if (raw === undefined) return cwd;
  const path = resolve(cwd, raw);
  let isFolder = false;
  try {
    isFolder = statSync(path).isDirectory();
  } catch {
    throw usageError(`Expected ${flag} to be an existing folder, got ${path} (no such folder)`);
  }
  if (!isFolder) throw usageError(`Expected ${flag} to be a folder, got ${path} (not a folder)`);
  return path;
}

/**
 * An id from the command line (a session, monitor or wake id), checked against its pattern before
 * any request is made: `..` or `mon-1/..` is a usage error, never a path. `flag` names an option.
 */
export function parseId(schema: z.ZodType<string>, raw: string, flag?: string): string {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw usageError(`${flag ? `${flag}: ` : ""}${formatZodError(parsed.error)}`);
  return parsed.data;
}
