/**
 * The vault: secret values by key, kept in the database; every change reaches the shield at once,
 * and every resolve for a monitor is an audit entry ("which watch used this key").
 * Design: docs/design.md §8.
 */
import { NotFoundError } from "../base/errors.js";
import type { Engine } from "../store/engine.js";
import type { VaultEntry } from "../store/vault.js";
import { envNameFor } from "./references.js";
import type { Shield } from "./shield.js";

export interface ResolvePurpose {
  sessionId: string;
  monitorId: string;
  purpose: "start" | "resume";
}

export class Vault {
  constructor(
    private readonly store: Engine,
    private readonly shield: Shield,
    private readonly now: () => number,
  ) {}

  async has(key: string): Promise<boolean> {
    return (await this.store.tables.vault.entries()).some(([k]) => k === key);
  }

  /** Every key set now (for a check that cannot wait on the store, such as arming's `hasKey`). */
  async keys(): Promise<Set<string>> {
    return new Set((await this.store.tables.vault.entries()).map(([key]) => key));
  }

  async set(key: string, value: string): Promise<void> {
    await this.store.tables.vault.set(key, value, this.now());
    this.shield.set(key, value);
  }

  async delete(key: string): Promise<void> {
    if (!(await this.store.tables.vault.delete(key))) throw new NotFoundError(`Unknown vault key ${key}`);
    this.shield.delete(key);
  }

  /** Names and usage, never values. */
  list(): Promise<VaultEntry[]> {
    return this.store.tables.vault.list();
  }

  /** The values for `keys` as `VIGIL_SECRET_KEY` variables, or the first missing key. */
  async resolve(keys: string[], use: ResolvePurpose): Promise<{ env: Record<string, string> } | { missing: string }> {
    if (keys.length === 0) return { env: {} };
    const values = new Map(await this.store.tables.vault.entries());
    const missing = keys.find((key) => !values.has(key));
    if (missing) return { missing };
    const env: Record<string, string> = {};
    for (const key of keys) {
      env[envNameFor(key)] = values.get(key) as string;
      await this.store.tables.vault.recordUse(key, use.sessionId, use.monitorId, use.purpose, this.now());
    }
    return { env };
  }
}
