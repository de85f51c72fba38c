/**
 * Looking for handover tags in an agent's transcript (design.md §6, §8) without ever stalling the
 * daemon: only a regular file is read (lstat, then opened with O_NOFOLLOW | O_NONBLOCK and checked
 * again on the descriptor, as the spool does), only the bytes after a mark taken at the claim,
 * asynchronously and in bounded chunks. A FIFO, a device, a link or a directory is refused by its
 * kind, unread.
 */
import { constants, type Stats } from "node:fs";
import { lstat, open } from "node:fs/promises";
import { kindOf } from "../base/file-kind.js";

/** A link is refused (ELOOP), never followed; a FIFO opens at once with no writer; never a terminal. */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;
/** Bytes read per step: the event loop sees one such step at a time, never the whole file. */
export const SCAN_CHUNK_BYTES = 64 * 1024;

/** Which file a transcript path named, and how far it went. */
export interface TranscriptMark {
  dev: number;
  ino: number;
  size: number;
}

/** One tag to look for, from byte `from` of the file `file` (null: whatever file the path names). */
export interface Needle {
  tag: Buffer;
  from: number;
  file: TranscriptMark | null;
}

export type ScanResult =
  /** Read up to `mark.size`: per needle, whether it was found, and where to look from next time. */
  | { mark: TranscriptMark; needles: Array<{ found: boolean; next: number }> }
  /** Not a regular file: never read (a FIFO would block, a device could do anything). */
  | { refused: string }
  /** Not there (yet), or unreadable now: asked again next time. */
  | null;

const refusal = (info: Stats) => `Expected the transcript to be a regular file, got ${kindOf(info)}`;

/** Where the transcript ends now (the claim's mark), or null when it is not a regular file now. */
export async function markOf(path: string): Promise<TranscriptMark | null> {
  try {
    const info = await lstat(path);
    return info.isFile() ? { dev: info.dev, ino: info.ino, size: info.size } : null;
  } catch {
    return null;
  }
}

/**
 * Reads what the transcript gained past each needle's `from` and finds the tags there. A file
 * replaced (another inode) or truncated since a needle's mark is read from its start.
 */
export async function scanTranscript(
  path: string,
  needles: Needle[],
  signal?: AbortSignal,
  chunkBytes = SCAN_CHUNK_BYTES,
): Promise<ScanResult> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    // Refused before it is opened (opening a device can do things); checked again on the descriptor.
    const entry = await lstat(path);
    if (!entry.isFile()) return { refused: refusal(entry) };
    handle = await open(path, OPEN_FLAGS);
  } catch (error) {
    // Swapped for a link or a socket since the lstat; else gone, or unreadable now.
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ELOOP" || code === "ENXIO" ? { refused: await refusalAt(path) } : null;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { refused: refusal(info) };
    const mark = { dev: info.dev, ino: info.ino, size: info.size };
    const starts = needles.map((needle) => {
      const same = needle.file === null || (needle.file.dev === mark.dev && needle.file.ino === mark.ino);
      return same && needle.from <= mark.size ? needle.from : 0;
    });
    const found = needles.map(() => false);
    const overlap = Math.max(0, ...needles.map((needle) => needle.tag.length - 1));
    const buffer = Buffer.alloc(overlap + chunkBytes);
    // buffer[0, kept) holds the last bytes of the previous chunk, so a tag across two chunks is seen.
    let kept = 0;
    let position = Math.min(mark.size, ...starts);
    while (position < mark.size && found.includes(false)) {
      if (signal?.aborted) return null;
      const want = Math.min(chunkBytes, mark.size - position);
      const { bytesRead } = await handle.read(buffer, kept, want, position);
      if (bytesRead === 0) break; // truncated meanwhile: the next look starts over
      const window = buffer.subarray(0, kept + bytesRead);
      const windowStart = position - kept;
      needles.forEach((needle, i) => {
        if (found[i]) return;
        const from = Math.max(0, (starts[i] as number) - windowStart);
        if (from < window.length && window.indexOf(needle.tag, from) !== -1) found[i] = true;
      });
      position += bytesRead;
      kept = Math.min(overlap, window.length);
      window.copyWithin(0, window.length - kept);
    }
    return {
      mark,
      needles: needles.map((needle, i) => ({
        found: found[i] as boolean,
        // A tag cut off at the end is whole next time: look again from just before the end.
        next: Math.max(starts[i] as number, position - (needle.tag.length - 1)),
      })),
    };
  } catch {
    return null;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

async function refusalAt(path: string): Promise<string> {
  try {
    return refusal(await lstat(path));
  } catch {
    return "Expected the transcript to be a regular file, got something that is not a file";
  }
}
