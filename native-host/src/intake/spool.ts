/**
 * The signal spool (design.md §5): `$VIGIL_HOME/tmp/signals/`. Writers write NAME.tmp and rename it to
 * NAME.json (atomic), so a half-written file is never read. The file name is the signal's identity
 * (a name reused for the same waitpoint is heard once). Collected at start, on every rename the folder watch reports
 * (well under a second), and by the sweep every `waitpointSweepMs` as a safety net. Only a regular
 * file of at most 64 KB is read, opened without following a link or waiting on a FIFO; anything else
 * (FIFO, link, directory, device, oversize) is refused by its kind, unread. Refused entries are parked
 * under bad/ (a link itself, never its target) with a NAME.json.reason beside them that quotes
 * nothing of the content.
 */
import {
  closeSync,
  constants,
  type FSWatcher,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  unlinkSync,
  watch,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import type { z } from "zod";
import { SIGNAL_LIMITS, SignalBodySchema } from "../../../shared/schemas/inputs.js";
import { formatZodError } from "../../../shared/schemas/zod-error.js";
import { kindOf } from "../base/file-kind.js";
import { inBackground, type Logger, toError } from "../base/log.js";
import type { SignalInput, SignalOutcome } from "../core/waitpoints.js";

/** A link is refused (ELOOP), never followed; a FIFO opens at once with no writer; never a terminal. */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;
const TOO_BIG = `Expected a file of at most ${SIGNAL_LIMITS.bodyBytes} bytes`;

/** The text of a regular file; `refused` for anything else; null when it is gone (or unreadable now). */
type Read = { text: string } | { refused: string } | null;

export interface SpoolOptions {
  dir: string;
  sweepMs: number;
  log: Logger;
  /** A file in this 0700 spool is the owner's: its signal needs no secret (design.md §8). */
  intake(body: SignalInput): Promise<SignalOutcome>;
}

export class Spool {
  #watcher: FSWatcher | null = null;
  #sweep: NodeJS.Timeout | null = null;
  #stopped = false;
  readonly #bad: string;
  /** Files are collected one at a time, in the order asked for (the watch's events, the sweeps). */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: SpoolOptions) {
    this.#bad = join(options.dir, "bad");
  }

  /** Watches the folder and collects what is there now (resolves once that is done). */
  async start(): Promise<void> {
    const { log } = this.options;
    mkdirSync(this.#bad, { recursive: true, mode: 0o700 });
    this.#watcher = watch(this.options.dir, (_event, name) => {
      if (typeof name === "string" && name.endsWith(".json"))
        inBackground(log, `spool: collecting ${name}`, this.collect(name));
    });
    this.#watcher.on("error", (error) => log.warn(`spool watch failed: ${error.message}; the sweep still collects`));
    if (this.options.sweepMs > 0) {
      this.#sweep = setInterval(() => inBackground(log, "spool: the sweep", this.drain()), this.options.sweepMs);
      this.#sweep.unref();
    }
    await this.drain();
  }

  stop(): void {
    this.#stopped = true;
    this.#watcher?.close();
    if (this.#sweep) clearInterval(this.#sweep);
  }

  /** Collects every complete file now (at start, and on each sweep), one after another. */
  async drain(): Promise<number> {
    let collected = 0;
    for (const name of readdirSync(this.options.dir).sort()) {
      if (name.endsWith(".json") && (await this.collect(name))) collected += 1;
    }
    return collected;
  }

  /**
   * Collects one file, after those asked for before it (one at a time, as when intake was
   * synchronous); false when it was already gone (another event got it first) or the spool stopped.
   */
  collect(name: string): Promise<boolean> {
    const collected = this.#queue.then(() => !this.#stopped && this.#collect(name));
    this.#queue = collected.catch(() => undefined);
    return collected;
  }

  async #collect(name: string): Promise<boolean> {
    const path = join(this.options.dir, name);
    const read = readEntry(path);
    if (read === null) return false;
    if ("refused" in read) {
      this.#park(name, read.refused);
      return true;
    }
    let parsed: ReturnType<typeof parseSignalFile<typeof OwnSpoolSignalSchema>>;
    try {
      parsed = parseSignalFile(read.text, OwnSpoolSignalSchema);
    } catch (error) {
      this.#park(name, `Expected a JSON signal, got: ${toError(error).message}`);
      return true;
    }
    if ("refused" in parsed) {
      this.#park(name, parsed.refused);
      return true;
    }
    let outcome: SignalOutcome;
    try {
      outcome = await this.options.intake({ ...parsed.body, key: `spool:${name}` });
    } catch (error) {
      // The store failed (a full disk, the database unreachable): the file is good, and stays for
      // the next sweep; its key makes a second try count once.
      this.options.log.warn(
        `spool: ${name} stays for the next sweep: it could not be stored (${toError(error).message})`,
      );
      return false;
    }
    if (isDeferred(outcome)) {
      this.options.log.info(`spool: ${name} stays for a later sweep: ${String(outcome.body.error)}`);
      return false;
    }
    if (isTaken(outcome)) {
      this.#remove(path);
      this.options.log.info(
        `spool: collected ${name} (${outcome.verdict === "accepted" ? "accepted" : String(outcome.body.error)})`,
      );
    } else {
      this.#park(name, `${outcome.verdict}: ${String(outcome.body.error)}`);
    }
    return true;
  }

  /** Moves the entry itself (a link, not its target) to bad/ and writes the reason beside it. */
  #park(name: string, reason: string): void {
    const from = join(this.options.dir, name);
    const to = join(this.#bad, name);
    try {
      try {
        renameSync(from, to);
      } catch (error) {
        if (!exists(from)) return; // Gone meanwhile: nothing to park.
        // bad/ was removed, or holds an earlier entry of this name a rename cannot replace (a directory).
        mkdirSync(this.#bad, { recursive: true, mode: 0o700 });
        rmSync(to, { recursive: true, force: true });
        renameSync(from, to);
        this.options.log.warn(`spool: replaced bad/${name} (${toError(error).message})`);
      }
      // A new file: never written through whatever was left at the reason's name.
      const reasonPath = join(this.#bad, `${name}.reason`);
      rmSync(reasonPath, { force: true });
      writeFileSync(reasonPath, `${reason}\n`, { flag: "wx" });
      this.options.log.warn(`spool: parked ${name} under bad/: ${reason}`);
    } catch (error) {
      this.options.log.warn(`spool: could not park ${name} under bad/: ${toError(error).message}`);
    }
  }

  #remove(path: string): void {
    try {
      unlinkSync(path);
    } catch {
      // Already removed.
    }
  }
}

/** This machine's spool is inside the owner's 0700 home: a file there may leave out the secret. */
const OwnSpoolSignalSchema = SignalBodySchema.extend({ secret: SignalBodySchema.shape.secret.optional() });

/**
 * A spool file's text as a signal body, or why it is refused (in words that quote none of the
 * text). A device's files must carry their waitpoint's secret; this machine's may leave it out.
 */
export function parseSignalFile<S extends z.ZodType<SignalInput> = typeof SignalBodySchema>(
  text: string,
  schema: S = SignalBodySchema as unknown as S,
): { body: z.infer<S> } | { refused: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    // Never the parser's message: it can quote the text.
    return { refused: `Expected a JSON signal, got text that is not valid JSON${positionOf(error)}` };
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? { body: parsed.data } : { refused: formatZodError(parsed.error) };
}

/** The file has done its work (accepted, or its waitpoint already ended): it is deleted, not parked. */
export const isTaken = (outcome: SignalOutcome): boolean =>
  outcome.verdict === "accepted" || outcome.verdict === "ended";

/** The waitpoint takes no more signals this minute: the file is good and waits for a later sweep. */
export const isDeferred = (outcome: SignalOutcome): boolean => outcome.verdict === "too_many_signals";

/** Reads a regular file of at most the body cap; refuses any other kind by name, without reading it. */
function readEntry(path: string): Read {
  let fd: number;
  try {
    // Refused before it is opened (opening a device can do things); checked again on the descriptor.
    const entry = lstatSync(path);
    if (!entry.isFile()) return { refused: `Expected a regular file, got ${kindOf(entry)}` };
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    // Swapped for a link or a socket since the lstat; else gone, or unreadable now (the sweep retries).
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ELOOP" || code === "ENXIO" ? { refused: `Expected a regular file, got ${kindAt(path)}` } : null;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return { refused: `Expected a regular file, got ${kindOf(info)}` };
    // Only the owner (or root) can write here; a file of anyone else's came by some other way.
    const uid = process.getuid?.();
    if (uid !== undefined && info.uid !== uid && info.uid !== 0) {
      return { refused: `Expected a file owned by uid ${uid} (this daemon's user), got one owned by uid ${info.uid}` };
    }
    // A writer renames its own new file in; a second name for a file is someone else's file.
    if (info.nlink > 1) return { refused: `Expected a file with one name, got one with ${info.nlink} hard links` };
    if (info.size > SIGNAL_LIMITS.bodyBytes) return { refused: `${TOO_BIG}, got ${info.size}` };
    // One byte past the cap tells a file that grew after the fstat.
    const buffer = Buffer.alloc(SIGNAL_LIMITS.bodyBytes + 1);
    let length = 0;
    for (;;) {
      const bytesRead = readSync(fd, buffer, length, buffer.length - length, length);
      length += bytesRead;
      if (bytesRead === 0 || length === buffer.length) break;
    }
    if (length > SIGNAL_LIMITS.bodyBytes) return { refused: `${TOO_BIG}, got more` };
    return { text: buffer.toString("utf8", 0, length) };
  } catch {
    return null;
  } finally {
    try {
      closeSync(fd);
    } catch {
      // Closed either way.
    }
  }
}

function kindAt(path: string): string {
  try {
    return kindOf(lstatSync(path));
  } catch {
    return "something that is not a file";
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Where JSON.parse stopped, when it says so (its message can quote the text, so only the number). */
function positionOf(error: unknown): string {
  const position = /at position (\d+)/.exec(toError(error).message)?.[1];
  return position === undefined ? "" : ` (at position ${position})`;
}
