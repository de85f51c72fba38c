/**
 * A file only this user can read (0600, in a fresh 0700 folder under the temp dir), for what must
 * not pass through argv, where every local user reads it in `ps`: the command adapter's wake JSON,
 * the Codex queue's wake text.
 * Design: docs/design.md §6, §8.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface PrivateFile {
  path: string;
  /** Takes the file and its folder away (safe to call twice). */
  remove(): void;
}

export function writePrivateFile(name: string, content: string): PrivateFile {
  const dir = mkdtempSync(join(tmpdir(), "vigil-wake-"));
  const path = join(dir, name);
  writeFileSync(path, content, { mode: 0o600 });
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
