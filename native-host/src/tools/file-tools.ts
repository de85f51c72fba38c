/**
 * `file__stat` and `file__read`: read-only looks at a file.
 * Design: docs/design.md §4.1.
 */
import { readFile, stat } from "node:fs/promises";
import { z } from "zod";
import { BODY_CAP, type Tool, ToolError } from "./tool.js";

const PathArgs = z.strictObject({ path: z.string().min(1).max(4096) });

export const fileStat: Tool<z.infer<typeof PathArgs>> = {
  name: "file__stat",
  readOnly: true,
  description: "Stat a file: {exists, isFile, isDirectory, size, mtime}",
  args: PathArgs,
  async run({ path }) {
    try {
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
  description: "Read a text file (first 64 KB): {exists, text, json?, size}",
  args: PathArgs,
  async run({ path }) {
    let buffer: Buffer;
    try {
      buffer = await readFile(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { exists: false };
      throw new ToolError(`read ${path} failed: ${(error as Error).message}`);
    }
    const text = buffer.subarray(0, BODY_CAP).toString("utf8");
    let json: unknown;
    try {
      json = buffer.length <= BODY_CAP ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { exists: true, size: buffer.length, text, ...(json === undefined ? {} : { json }) };
  },
};
