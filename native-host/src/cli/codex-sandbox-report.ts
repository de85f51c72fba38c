/**
 * What sandbox a Codex session runs under, as its hooks report it to Vigil (issue #37, High 2).
 * Codex 0.169's hook input names none (its `permission_mode` says "bypassPermissions" under
 * workspace-write); its transcript does: each turn starts with a `turn_context` line holding
 * `sandbox_policy.type` and `cwd`. The hook reads the newest one (a regular file only, the last
 * 1 MB at most). A transcript the sandboxed agent could have written itself (under its folder or
 * /tmp, both writable in workspace-write) is believed only when it reports something no wider than
 * workspace-write. Design: docs/design.md §8.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { tmpdir } from "node:os";
import { resolve, sep } from "node:path";
import { type SessionSandbox, SessionSandboxSchema } from "../../../shared/schemas/sandbox.js";

const TAIL_BYTES = 1024 * 1024;
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

/** The last `TAIL_BYTES` of a regular file (never a FIFO, device or symlink); null otherwise. */
function tailOf(path: string): string | null {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch {
    return null;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return null;
    const length = Math.min(stat.size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, stat.size - length);
    return buffer.toString("utf8");
  } finally {
    closeSync(fd);
  }
}

const isWithin = (path: string, folder: string) => {
  const base = resolve(folder);
  return path === base || path.startsWith(base.endsWith(sep) ? base : `${base}${sep}`);
};

/** The newest turn's sandbox in a Codex transcript; null when none is found or it cannot be believed. */
export function codexSandboxOf(transcriptPath: string): SessionSandbox | null {
  const text = tailOf(transcriptPath);
  if (text === null) return null;
  const lines = text.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] as string;
    if (!line.includes('"turn_context"')) continue;
    let entry: { type?: unknown; payload?: { cwd?: unknown; sandbox_policy?: { type?: unknown } } };
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (entry.type !== "turn_context") continue;
    const parsed = SessionSandboxSchema.safeParse({
      agent: "codex",
      mode: entry.payload?.sandbox_policy?.type,
      root: entry.payload?.cwd,
    });
    if (!parsed.success) return null;
    const path = resolve(transcriptPath);
    const agentWritable = isWithin(path, parsed.data.root) || isWithin(path, tmpdir()) || isWithin(path, "/tmp");
    return agentWritable && parsed.data.mode === "danger-full-access" ? null : parsed.data;
  }
  return null;
}
