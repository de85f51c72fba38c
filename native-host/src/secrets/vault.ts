/**
 * The vault: secret values by key, kept in the database; every change reaches the shield at once,
 * and every resolve for a monitor is an audit entry ("which watch used this key").
 * Design: docs/design.md §8.
 */
import { NotFoundError } from "../base/errors.js";
import type { Store } from "../store/store.js";
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
    private readonly store: Store,
    private readonly shield: Shield,
    private readonly now: () => number,
  ) {}

  has(key: string): boolean {
    return this.store.vault.entries().some(([k]) => k === key);
  }

  set(key: string, value: string): void {
    this.store.vault.set(key, value, this.now());
    this.shield.set(key, value);
  }

  delete(key: string): void {
    if (!this.store.vault.delete(key)) throw new NotFoundError(`Unknown vault key ${key}`);
    this.shield.delete(key);
  }

  /** Names and usage, never values. */
  list(): VaultEntry[] {
    return this.store.vault.list();
  }

  /** The values for `keys` as `VIGIL_SECRET_KEY` variables, or the first missing key. */
  resolve(keys: string[], use: ResolvePurpose): { env: Record<string, string> } | { missing: string } {
    if (keys.length === 0) return { env: {} };
    const values = new Map(this.store.vault.entries());
    const missing = keys.find((key) => !values.has(key));
    if (missing) return { missing };
    const env: Record<string, string> = {};
    for (const key of keys) {
      env[envNameFor(key)] = values.get(key) as string;
      this.store.vault.recordUse(key, use.sessionId, use.monitorId, use.purpose, this.now());
    }
    return { env };
  }
}
