/**
 * The vault on PostgreSQL (team mode, #27): values stay in the home's vault.json (`VaultFile`, one
 * per daemon, shared by every transaction's tables), the audit of uses goes to `vault_audit` with
 * the SQL of store/vault.ts and `$n` placeholders; entries shown by the SQLite module's
 * `toVaultEntries`.
 * Design: docs/design.md §9 (team mode; the plan: docs/team-mode-plan.md).
 */
import type { VaultStore } from "../engine.js";
import { type RawVaultUse, toVaultEntries, VAULT_USES_SHOWN, type VaultEntry } from "../vault.js";
import type { VaultFile } from "../vault-file.js";
import { all, type Queryable, run, statement } from "./statement.js";

const AUDIT = statement(
  "vault_audit_insert",
  "INSERT INTO vault_audit (key, session_id, monitor_id, purpose, at) VALUES ($1, $2, $3, $4, $5)",
);
const AUDIT_OF = statement(
  "vault_audit_of",
  "SELECT session_id, monitor_id, purpose, at FROM vault_audit WHERE key = $1 ORDER BY id DESC LIMIT $2",
);

export class PgVault implements VaultStore {
  constructor(
    private readonly db: Queryable,
    private readonly file: VaultFile,
  ) {}

  async entries(): Promise<Array<[string, string]>> {
    return this.file.entries();
  }

  async set(key: string, value: string, at: number): Promise<void> {
    this.file.set(key, value, at);
  }

  async delete(key: string): Promise<boolean> {
    return this.file.delete(key);
  }

  async recordUse(key: string, sessionId: string, monitorId: string, purpose: "start" | "resume", at: number) {
    await run(this.db, AUDIT, [key, sessionId, monitorId, purpose, at]);
  }

  async list(): Promise<VaultEntry[]> {
    const keys = this.file.keys();
    const uses = new Map<string, RawVaultUse[]>();
    for (const [key] of keys) uses.set(key, await all<RawVaultUse>(this.db, AUDIT_OF, [key, VAULT_USES_SHOWN]));
    return toVaultEntries(keys, (key) => uses.get(key) ?? []);
  }
}
