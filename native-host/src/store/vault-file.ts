/**
 * The vault's values (team mode, #27, split out of vault.ts): secret values by key in
 * `$VIGIL_HOME/vault.json` (0600, replaced atomically), never in a database — so they stay per home
 * on either engine, while the audit of their uses lives in the database (vault.ts, pg/vault.ts).
 * Design: docs/design.md §9.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { StorageError } from "../base/errors.js";

interface VaultFileData {
  version: 1;
  secrets: Record<string, { value: string; updatedAt: number }>;
}

export class VaultFile {
  #data: VaultFileData;

  /** `file` null keeps the values in memory (tests on `:memory:` databases). */
  constructor(private readonly file: string | null) {
    this.#data = this.#read();
  }

  #read(): VaultFileData {
    if (!this.file) return { version: 1, secrets: {} };
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch {
      return { version: 1, secrets: {} };
    }
    const parsed = JSON.parse(text) as VaultFileData;
    if (parsed.version !== 1 || typeof parsed.secrets !== "object") {
      throw new Error(`${this.file}: Expected a Vigil vault file (version 1), got something else`);
    }
    return parsed;
  }

  /**
   * Persists `next`, then makes it the vault in memory: when the write fails (disk full, a file in
   * the way) nothing changes, so no value is ever resolvable that the file and the shield lack.
   */
  #commit(next: VaultFileData): void {
    if (this.file) {
      const tmp = `${this.file}.tmp`;
      try {
        writeFileSync(tmp, JSON.stringify(next), { mode: 0o600 });
        renameSync(tmp, this.file);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? "EIO";
        try {
          rmSync(tmp, { force: true });
        } catch {
          // Not a file we wrote (a directory in the way): leave it.
        }
        throw new StorageError(`Storage unavailable (${code}: cannot write ${this.file}); the vault was not changed`);
      }
    }
    this.#data = next;
  }

  /** Every key and value: the daemon keeps them in memory for the shield. */
  entries(): Array<[string, string]> {
    return Object.entries(this.#data.secrets)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, entry]) => [key, entry.value]);
  }

  set(key: string, value: string, at: number): void {
    this.#commit({ version: 1, secrets: { ...this.#data.secrets, [key]: { value, updatedAt: at } } });
  }

  delete(key: string): boolean {
    if (!(key in this.#data.secrets)) return false;
    const { [key]: _gone, ...rest } = this.#data.secrets;
    this.#commit({ version: 1, secrets: rest });
    return true;
  }

  /** Every key with the time its value was last set, by key. */
  keys(): Array<[string, number]> {
    return Object.entries(this.#data.secrets)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, entry]) => [key, entry.updatedAt]);
  }
}
