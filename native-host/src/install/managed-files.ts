/**
 * Files Vigil edits that belong to someone else (an agent's settings, a shell bin dir): each edit is
 * computed as the whole new text, written atomically, and recorded with the file's original bytes,
 * so a second run changes nothing and `--remove` puts back exactly what was there — byte for byte
 * when nobody touched the file since, by taking out only Vigil's part when someone did. A file its
 * program rewrote between setup's read and its write (Claude Code and `.claude.json`) is read again
 * and Vigil's change merged into what is there now, so nothing the program wrote is lost.
 * Design: docs/design.md §7.
 */
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";

export interface PlannedFile {
  path: string;
  /** The text now (null: the file does not exist). */
  before: string | null;
  /** The text Vigil wants (null: the file should not exist). */
  after: string | null;
  /** File mode for a file Vigil creates. */
  mode?: number;
  /**
   * The file belongs to a program that rewrites it all the time and holds account data in it
   * (Claude Code's `.claude.json`): no copy of it is kept; --remove takes Vigil's part out.
   */
  volatile?: boolean;
  /** The text with Vigil's part taken out (what the user's own file is, when Vigil's record is stale). */
  strip?: (text: string) => string | null;
  /**
   * `after` worked out again from the file as it is now, for a file its program may rewrite while
   * setup runs. Without it, a file that changed since it was read is refused rather than overwritten.
   */
  remerge?: (current: string | null) => string | null;
}

/** How many times a file that keeps changing under setup is read and merged again. */
const MERGE_TRIES = 5;

interface Record {
  path: string;
  /** The file as it was before Vigil first changed it (null: it did not exist, or is not kept). */
  original: string | null;
  /** Vigil created the file (so --remove deletes it). */
  created?: boolean;
  /** sha256 of what Vigil last wrote. */
  written: string | null;
  /** Folders that did not exist before Vigil first wrote the file, deepest first (--remove takes them out when empty). */
  createdDirs?: string[];
}

/** The folders above `path` that do not exist yet, deepest first. */
function missingDirs(path: string): string[] {
  const missing: string[] = [];
  for (let dir = dirname(path); !existsSync(dir) && dirname(dir) !== dir; dir = dirname(dir)) missing.push(dir);
  return missing;
}

const sha = (text: string | null) => (text === null ? null : createHash("sha256").update(text).digest("hex"));

export function readText(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

export function changed(plan: PlannedFile[]): PlannedFile[] {
  return plan.filter((file) => file.before !== file.after);
}

/** A unified-looking summary of one change, for --dry-run. */
export function describeChange(file: PlannedFile): string {
  if (file.before === null) return `create ${file.path}\n${indent(file.after ?? "", "+ ")}`;
  if (file.after === null) return `delete ${file.path}`;
  const before = file.before.split("\n");
  const after = file.after.split("\n");
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let endB = before.length - 1;
  let endA = after.length - 1;
  while (endB >= start && endA >= start && before[endB] === after[endA]) {
    endB--;
    endA--;
  }
  const removed = before.slice(start, endB + 1).map((line) => `- ${line}`);
  const added = after.slice(start, endA + 1).map((line) => `+ ${line}`);
  return [`change ${file.path} (from line ${start + 1})`, ...removed, ...added].join("\n");
}

const indent = (text: string, prefix: string) =>
  text
    .split("\n")
    .map((line) => `${prefix}${line}`)
    .join("\n");

/** The file as the user has it: its bytes, unless they still hold Vigil's part (then without it). */
function userPart(file: PlannedFile): string | null {
  if (file.before === null || !file.strip) return file.before;
  const stripped = file.strip(file.before);
  const same = (a: string | null, b: string) => {
    if (a === b) return true;
    try {
      return JSON.stringify(JSON.parse(a ?? "")) === JSON.stringify(JSON.parse(b));
    } catch {
      return false;
    }
  };
  return same(stripped, file.before) ? file.before : stripped;
}

export class ManagedFiles {
  readonly #dir: string;

  /** `dir`: where the records live ($VIGIL_HOME/setup). */
  constructor(dir: string) {
    this.#dir = dir;
  }

  #recordPath(path: string): string {
    return join(this.#dir, `${createHash("sha256").update(path).digest("hex").slice(0, 16)}.json`);
  }

  #read(path: string): Record | null {
    const text = readText(this.#recordPath(path));
    return text === null ? null : (JSON.parse(text) as Record);
  }

  /** Writes the planned changes, keeping each file's original the first time Vigil changes it. */
  apply(plan: PlannedFile[]): void {
    mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
    for (const planned of changed(plan)) {
      const missing = missingDirs(planned.path);
      const file = replaceFile(planned);
      if (file.before === file.after) continue;
      const record = this.#read(file.path);
      // The original stays the one from before Vigil's first change, unless the file moved on since.
      const original = file.volatile
        ? null
        : record && record.written === sha(file.before)
          ? record.original
          : userPart(file);
      writeAtomically(
        this.#recordPath(file.path),
        `${JSON.stringify({ path: file.path, original, written: sha(file.after), created: (record ? record.created : file.before === null) ?? false, createdDirs: record ? (record.createdDirs ?? []) : missing } satisfies Record)}\n`,
        0o600,
      );
    }
  }

  /**
   * The text a file goes back to: its original bytes when it still holds exactly what Vigil wrote,
   * else `withoutVigil` (the current text with only Vigil's part taken out).
   */
  restoreText(path: string, current: string | null, withoutVigil: (text: string) => string | null): string | null {
    const record = this.#read(path);
    if (record && record.written === sha(current) && (record.original !== null || record.created))
      return record.original;
    return current === null ? null : withoutVigil(current);
  }

  /** Forgets the file, and removes the folders Vigil created for it that are empty now. */
  forget(path: string): void {
    const record = this.#read(path);
    rmSync(this.#recordPath(path), { force: true });
    if (existsSync(path)) return;
    for (const dir of record?.createdDirs ?? []) {
      try {
        rmdirSync(dir);
      } catch {
        return; // not empty (or gone): it, and the folders above it, stay
      }
    }
  }
}

/**
 * Puts `file.after` in place of `file.before`, atomically (a temporary file renamed over it, its mode
 * kept). Just before the rename the file is read again: if its program wrote it since it was read,
 * `remerge` works Vigil's change into the new text and the write starts over (a few tries), so the
 * program's write is not lost. Returns what was replaced by what.
 */
export function replaceFile(file: PlannedFile, tries = MERGE_TRIES): PlannedFile {
  let current = file;
  for (let attempt = 1; ; attempt++) {
    const path = existsSync(file.path) ? realpathSync(file.path) : file.path;
    const tmp = current.after === null ? null : writeTemporary(path, current.after, file.mode);
    const now = readText(path);
    if (now === current.before) {
      if (tmp === null) rmSync(path, { force: true });
      else renameSync(tmp, path);
      return current;
    }
    if (tmp !== null) rmSync(tmp, { force: true });
    if (!file.remerge)
      throw new Error(`${file.path} changed while setup was writing it; nothing was written to it: run setup again`);
    if (attempt >= tries)
      throw new Error(
        `${file.path} kept changing while setup was writing it (${tries} tries); nothing was written to it: run setup again`,
      );
    current = { ...file, before: now, after: file.remerge(now) };
    if (current.after === current.before) return current;
  }
}

/** `text` in a new file beside `path`, with `path`'s mode (or `mode` for a new file); returns its name. */
function writeTemporary(path: string, text: string, mode?: number): string {
  mkdirSync(dirname(path), { recursive: true });
  const keep = existsSync(path) ? statSync(path).mode & 0o777 : (mode ?? 0o644);
  const tmp = `${path}.vigil-${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: keep });
  chmodSync(tmp, keep);
  return tmp;
}

function writeAtomically(path: string, text: string, mode: number): void {
  renameSync(writeTemporary(path, text, mode), path);
}
