/**
 * What a check or a watch runs with: its working directory and the secret values its source names,
 * resolved through the vault once at start or resume (an audit entry each), never per check.
 * Design: docs/design.md §3, §8.
 */
import { homedir } from "node:os";
import type { Source } from "../../../shared/schemas/sources.js";
import { secretKeysIn } from "../secrets/references.js";
import type { Vault } from "../secrets/vault.js";
import type { MonitorRecord } from "../store/monitors.js";
import type { SessionRow } from "../store/sessions.js";

/** The source's own cwd, else the session's root (looked up only when needed), else the home directory. */
export function cwdFor(
  record: MonitorRecord,
  root: SessionRow | undefined | (() => string | null | undefined),
): string {
  const source = record.source as Source;
  if ("cwd" in source && source.cwd) return source.cwd;
  return (typeof root === "function" ? root() : root?.root) || homedir();
}

export class SecretEnv {
  readonly #env = new Map<number, Record<string, string>>();

  constructor(
    private readonly vault: Vault,
    /** The text of a source that may hold `${secret:KEY}` references (the probe kind's secretText). */
    private readonly secretText: (record: MonitorRecord) => string,
  ) {}

  /** Resolves a monitor's `${secret:KEY}` values; returns the first missing key. */
  resolve(record: MonitorRecord, purpose: "start" | "resume"): string | undefined {
    const keys = secretKeysIn(this.secretText(record));
    const resolved = this.vault.resolve(keys, { sessionId: record.sessionId, monitorId: record.id, purpose });
    if ("missing" in resolved) return resolved.missing;
    if (keys.length > 0) this.#env.set(record.uid, resolved.env);
    return undefined;
  }

  of(uid: number): Record<string, string> {
    return this.#env.get(uid) ?? {};
  }

  forget(uid: number): void {
    this.#env.delete(uid);
  }
}
