/** The vault (secret values by key) and its audit log: which monitor resolved which key, when. */
import type { Db } from "./db.js";

export interface VaultEntry {
  key: string;
  updatedAt: string;
  usedBy: Array<{ sessionId: string; monitorId: string; purpose: "start" | "resume"; at: string }>;
}

export class VaultTable {
  readonly #all;
  readonly #upsert;
  readonly #delete;
  readonly #audit;
  readonly #auditOf;

  constructor(db: Db) {
    this.#all = db.prepare<[], { key: string; value: string; updated_at: number }>(
      "SELECT key, value, updated_at FROM vault ORDER BY key",
    );
    this.#upsert = db.prepare(
      "INSERT INTO vault (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
    );
    this.#delete = db.prepare("DELETE FROM vault WHERE key = ?");
    this.#audit = db.prepare(
      "INSERT INTO vault_audit (key, session_id, monitor_id, purpose, at) VALUES (?, ?, ?, ?, ?)",
    );
    this.#auditOf = db.prepare<
      [string],
      { session_id: string; monitor_id: string; purpose: "start" | "resume"; at: number }
    >("SELECT session_id, monitor_id, purpose, at FROM vault_audit WHERE key = ? ORDER BY id DESC LIMIT 50");
  }

  /** Every key and value: the daemon keeps them in memory for the shield. */
  entries(): Array<[string, string]> {
    return this.#all.all().map((row) => [row.key, row.value]);
  }

  set(key: string, value: string, at: number): void {
    this.#upsert.run(key, value, at);
  }

  delete(key: string): boolean {
    return this.#delete.run(key).changes > 0;
  }

  recordUse(key: string, sessionId: string, monitorId: string, purpose: "start" | "resume", at: number): void {
    this.#audit.run(key, sessionId, monitorId, purpose, at);
  }

  /** Names and usage, never values. */
  list(): VaultEntry[] {
    return this.#all.all().map((row) => ({
      key: row.key,
      updatedAt: new Date(row.updated_at).toISOString(),
      usedBy: this.#auditOf.all(row.key).map((use) => ({
        sessionId: use.session_id,
        monitorId: use.monitor_id,
        purpose: use.purpose,
        at: new Date(use.at).toISOString(),
      })),
    }));
  }
}
