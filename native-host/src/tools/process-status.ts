/**
 * `process__status`: is a pid alive? (A zombie counts as exited.)
 * Design: docs/design.md §4.1.
 */
import { readFile } from "node:fs/promises";
import { z } from "zod";
import type { Tool } from "./tool.js";

const Args = z.strictObject({ pid: z.number().int().positive() });

export const processStatus: Tool<z.infer<typeof Args>> = {
  name: "process__status",
  readOnly: true,
  description: "Whether a process is alive: {pid, alive}",
  args: Args,
  async run({ pid }) {
    try {
      const stat = await readFile(`/proc/${pid}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      return { pid, alive: state !== "Z" };
    } catch {
      try {
        process.kill(pid, 0);
        return { pid, alive: true };
      } catch (error) {
        return { pid, alive: (error as NodeJS.ErrnoException).code === "EPERM" };
      }
    }
  },
};
