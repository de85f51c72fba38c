/**
 * The vault: secret values by key, and who resolved them. Values live in `$VIGIL_HOME/vault.json`
 * (0600, replaced atomically), never in the database, so no copy of a value sits in the database
 * file, its WAL or its free pages; the audit of uses lives in the database.
 * Design: docs/design.md §9.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import type { VaultEntry } from "../../../shared/schemas/views.js";
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

  #write(): void {
    if (!this.file) return;
    writeFileSync(`${this.file}.tmp`, JSON.stringify(this.#data), { mode: 0o600 });
    renameSync(`${this.file}.tmp`, this.file);
  }

  /** Every key and value: the daemon keeps them in memory for the shield. */
  entries(): Array<[string, string]> {
    return Object.entries(this.#data.secrets)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, entry]) => [key, entry.value]);
  }

  set(key: string, value: string, at: number): void {
    this.#data.secrets[key] = { value, updatedAt: at };
    this.#write();
  }

  delete(key: string): boolean {
    if (!(key in this.#data.secrets)) return false;
    delete this.#data.secrets[key];
    this.#write();
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
