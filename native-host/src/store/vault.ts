/**
 * The vault: secret values by key, and who resolved them. Values live in `$VIGIL_HOME/vault.json`
 * (vault-file.ts), never in the database, so no copy of a value sits in the database file, its WAL
 * or its free pages; the audit of uses lives in the database.
 * Design: docs/design.md §9.
 */
import type { VaultEntry } from "../../../shared/schemas/views.js";
import type { Db } from "./db.js";
import { VaultFile } from "./vault-file.js";

export type { VaultEntry };

export interface RawVaultUse {
  session_id: string;
  monitor_id: string;
  purpose: "start" | "resume";
  at: number;
}

/** `list` shows the last this many uses of each key (the audit keeps them all). */
export const VAULT_USES_SHOWN = 50;

/** The entries `list` shows: names and usage from the file's keys and the audit, never values. */
export function toVaultEntries(keys: Array<[string, number]>, usesOf: (key: string) => RawVaultUse[]): VaultEntry[] {
  return keys.map(([key, updatedAt]) => ({
    key,
    updatedAt: new Date(updatedAt).toISOString(),
    usedBy: usesOf(key).map((use) => ({
      sessionId: use.session_id,
      monitorId: use.monitor_id,
      purpose: use.purpose,
      at: new Date(use.at).toISOString(),
    })),
  }));
}

export class VaultTable {
  readonly #audit;
  readonly #auditOf;
  readonly #file: VaultFile;

  /** `file` null keeps the values in memory (tests on `:memory:` databases); or a VaultFile to share. */
  constructor(db: Db, file: string | null | VaultFile) {
    this.#audit = db.prepare(
      "INSERT INTO vault_audit (key, session_id, monitor_id, purpose, at) VALUES (?, ?, ?, ?, ?)",
    );
    this.#auditOf = db.prepare<[string, number], RawVaultUse>(
      "SELECT session_id, monitor_id, purpose, at FROM vault_audit WHERE key = ? ORDER BY id DESC LIMIT ?",
    );
    this.#file = file instanceof VaultFile ? file : new VaultFile(file);
  }

  /** Every key and value: the daemon keeps them in memory for the shield. */
  entries(): Array<[string, string]> {
    return this.#file.entries();
  }

  set(key: string, value: string, at: number): void {
    this.#file.set(key, value, at);
  }

  delete(key: string): boolean {
    return this.#file.delete(key);
  }

  recordUse(key: string, sessionId: string, monitorId: string, purpose: "start" | "resume", at: number): void {
    this.#audit.run(key, sessionId, monitorId, purpose, at);
  }

  /** Names and usage, never values. */
  list(): VaultEntry[] {
    return toVaultEntries(this.#file.keys(), (key) => this.#auditOf.all(key, VAULT_USES_SHOWN));
  }
}
