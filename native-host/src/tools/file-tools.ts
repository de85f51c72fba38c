/**
 * `file__stat` and `file__read`: read-only looks at a file. `file__read` reads regular files only,
 * opened without blocking and at most BODY_CAP + 1 bytes: a FIFO, a device, a socket or a directory is
 * refused, so one check can never hold one of the few I/O threads every monitor shares.
 * Design: docs/design.md §4.1.
 */
import { constants } from "node:fs";
import { type FileHandle, open, stat } from "node:fs/promises";
import { z } from "zod";
import { kindOf } from "../base/file-kind.js";
import { BODY_CAP, type Tool, type ToolContext, ToolError } from "./tool.js";

const PathArgs = z.strictObject({ path: z.string().min(1).max(4096) });

/** O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one. */
const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

export const fileStat: Tool<z.infer<typeof PathArgs>> = {
  name: "file__stat",
  readOnly: true,
  description: "Stat a file: {exists, isFile, isDirectory, size, mtime}",
  args: PathArgs,
  async run({ path }) {
    try {
      // stat never opens the file, so a FIFO or a device cannot block it.
      const info = await stat(path);
      return {
        exists: true,
        isFile: info.isFile(),
        isDirectory: info.isDirectory(),
        size: info.size,
        mtime: info.mtime.toISOString(),
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { exists: false };
      throw new ToolError(`stat ${path} failed: ${(error as Error).message}`);
    }
  },
};

export const fileRead: Tool<z.infer<typeof PathArgs>> = {
  name: "file__read",
  readOnly: true,
  description: "Read a regular text file (first 64 KB): {exists, text, json?, size}",
  args: PathArgs,
  async run({ path }, context) {
    const signal = AbortSignal.any([context.signal, AbortSignal.timeout(context.timeoutMs)]);
    const failed = (why: string) => new ToolError(`read ${path} failed: ${why}`);
    let handle: FileHandle;
    try {
      // Refused before it is opened (opening a device can do things); checked again on the handle.
      const info = await stat(path);
      if (!info.isFile()) throw failed(`Expected a regular file, got ${kindOf(info)}`);
      handle = await openUnlessAborted(path, signal);
    } catch (error) {
      if (error instanceof ToolError) throw error;
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { exists: false };
      throw failed(signal.aborted ? abortedWhy(context) : (error as Error).message);
    }
    const buffer = Buffer.alloc(BODY_CAP + 1);
    let length = 0;
    let size: number;
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw failed(`Expected a regular file, got ${kindOf(info)}`);
      // Up to EOF or one byte past the cap (a /proc file says size 0 and still has text).
      for (;;) {
        if (signal.aborted) throw failed(abortedWhy(context));
        const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
        length += bytesRead;
        if (bytesRead === 0 || length === buffer.length) break;
      }
      size = Math.max(info.size, length);
    } catch (error) {
      if (error instanceof ToolError) throw error;
      throw failed(signal.aborted ? abortedWhy(context) : (error as Error).message);
    } finally {
      await handle.close().catch(() => undefined);
    }
    // A cut is marked `…`, as every cut Vigil makes, so the shield can mask a secret it split.
    const cut = length > BODY_CAP;
    const text = buffer.subarray(0, Math.min(length, BODY_CAP)).toString("utf8") + (cut ? "…" : "");
    let json: unknown;
    try {
      json = cut ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { exists: true, size, text, ...(json === undefined ? {} : { json }) };
  },
};

/** Opens for reading; an abort rejects at once (a handle that opens later is closed). */
async function openUnlessAborted(path: string, signal: AbortSignal): Promise<FileHandle> {
  signal.throwIfAborted();
  const opening = open(path, READ_FLAGS);
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([opening, aborted]);
  } catch (error) {
    if (signal.aborted) opening.then((late) => late.close()).catch(() => undefined);
    throw error;
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

function abortedWhy(context: ToolContext): string {
  return context.signal.aborted ? "the check was stopped" : `no answer within ${context.timeoutMs / 1000}s`;
}
