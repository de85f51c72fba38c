/**
 * When a process started, in clock ticks since boot (/proc/<pid>/stat field 22): with its pid, the
 * identity of a process that a recycled pid cannot fake. The agent hooks record it; delivery
 * compares it (delivery/adapters/agent-liveness.ts). Design: docs/design.md §6, §8.
 */
import { readFileSync } from "node:fs";

/** A process's start time, in clock ticks since boot (/proc/<pid>/stat field 22), or null. */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) is in parentheses and may hold spaces: count from its end.
    const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    return start && /^\d+$/.test(start) ? start : null;
  } catch {
    return null;
  }
}
