/**
 * The vault: secret values by key, and who resolved them. Values live in `$VIGIL_HOME/vault.json`
 * (0600, replaced atomically), never in the database, so no copy of a value sits in the database
 * file, its WAL or its free pages; the audit of uses lives in the database.
 * Design: docs/design.md §9.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import type { VaultEntry } from "../../../shared/schemas/views.js";
import { StorageError } from "../base/errors.js";
import type { Db } from "./db.js";

export type { VaultEntry };

interface VaultFileData {
  version: 1;
  secrets: Record<string, { value: string; updatedAt: number }>;
}

export class VaultTable {
  readonly #audit;
  readonly #auditOf;
  #data: VaultFileData;

  /** `file` null keeps the values in memory (tests on `:memory:` databases). */
  constructor(
    db: Db,
    private readonly file: string | null,
  ) {
    this.#audit = db.prepare(
      "INSERT INTO vault_audit (key, session_id, monitor_id, purpose, at) VALUES (?, ?, ?, ?, ?)",
    );
    this.#auditOf = db.prepare<
      [string],
      { session_id: string; monitor_id: string; purpose: "start" | "resume"; at: number }
    >("SELECT session_id, monitor_id, purpose, at FROM vault_audit WHERE key = ? ORDER BY id DESC LIMIT 50");
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

  recordUse(key: string, sessionId: string, monitorId: string, purpose: "start" | "resume", at: number): void {
    this.#audit.run(key, sessionId, monitorId, purpose, at);
  }

  /** Names and usage, never values. */
  list(): VaultEntry[] {
    return Object.entries(this.#data.secrets)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, entry]) => ({
        key,
        updatedAt: new Date(entry.updatedAt).toISOString(),
        usedBy: this.#auditOf.all(key).map((use) => ({
          sessionId: use.session_id,
          monitorId: use.monitor_id,
          purpose: use.purpose,
          at: new Date(use.at).toISOString(),
        })),
      }));
  }
}
