/**
 * Why a delivery program did not do its job, its real cause first: the folder it was to run in is
 * gone, the program is not there, it may not be run — rather than execa's "Command failed with
 * ENOENT: <argv>" whose cause hides on a later line; and for a program that ran and failed, its
 * last lines of stderr (bounded; the delivery shields secrets in every error it records).
 * Design: docs/design.md §6.
 */
import { statSync } from "node:fs";

interface Failed {
  code?: string;
  originalMessage?: string;
  shortMessage?: string;
}

const isDirectory = (path: string) => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/** One line: why `program` could not be started (in `cwd`, when it has one). */
export function whyNotStarted(result: Failed, program: string, cwd?: string): string {
  if (cwd !== undefined && !isDirectory(cwd)) return `its folder ${cwd} no longer exists`;
  if (result.code === "ENOENT") return `${program} was not found (not on PATH, or no such file)`;
  if (result.code === "EACCES") return `${program} may not be run (not executable, or a folder on its path is closed)`;
  const first = (result.originalMessage ?? result.shortMessage ?? "unknown error").split("\n")[0];
  return first ?? "unknown error";
}

/** The last `lines` non-empty lines of `text`, each at most `width` characters: what a failing program said last. */
export function lastLines(text: string, lines = 5, width = 300): string {
  return text
    .split("\n")
    .map((line) => line.trimEnd())
    .filter(Boolean)
    .slice(-lines)
    .map((line) => (line.length > width ? `${line.slice(0, width)}…` : line))
    .join("\n");
}
