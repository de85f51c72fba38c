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
export function cwdFor(record: MonitorRecord, root: SessionRow | undefined): string;
export function cwdFor(record: MonitorRecord, root: () => Promise<string | null | undefined>): Promise<string> | string;
export function cwdFor(
  record: MonitorRecord,
  root: SessionRow | undefined | (() => Promise<string | null | undefined>),
): Promise<string> | string {
  const source = record.source as Source;
  if ("cwd" in source && source.cwd) return source.cwd;
  if (typeof root !== "function") return root?.root || homedir();
  return root().then((found) => found || homedir());
}

export class SecretEnv {
  readonly #env = new Map<number, Record<string, string>>();
  /** Each monitor's resolve, once: callers at the same time share it (one audit entry). */
  readonly #resolving = new Map<number, Promise<string | undefined>>();

  constructor(
    private readonly vault: Vault,
    /** The text of a source that may hold `${secret:KEY}` references (the probe kind's secretText). */
    private readonly secretText: (record: MonitorRecord) => string,
  ) {}

  /** Resolves a monitor's `${secret:KEY}` values (once until `forget`); returns the first missing key. */
  resolve(record: MonitorRecord, purpose: "start" | "resume"): Promise<string | undefined> {
    const known = this.#resolving.get(record.uid);
    if (known) return known;
    const resolving = this.#resolve(record, purpose);
    this.#resolving.set(record.uid, resolving);
    // A failed read of the vault is tried again by the next caller.
    resolving.catch(() => this.#resolving.delete(record.uid));
    return resolving;
  }

  async #resolve(record: MonitorRecord, purpose: "start" | "resume"): Promise<string | undefined> {
    const keys = secretKeysIn(this.secretText(record));
    const resolved = await this.vault.resolve(keys, {
      sessionId: record.sessionId,
      monitorId: record.id,
      purpose,
    });
    if ("missing" in resolved) return resolved.missing;
    if (keys.length > 0) this.#env.set(record.uid, resolved.env);
    return undefined;
  }

  /**
   * A check's values. Arming resolves them right after its transaction commits; a check the
   * scheduler starts before that resolve has run takes part in it (or starts it) rather than
   * running without them.
   */
  async forCheck(record: MonitorRecord): Promise<Record<string, string>> {
    await this.resolve(record, "start");
    return this.of(record.uid);
  }

  of(uid: number): Record<string, string> {
    return this.#env.get(uid) ?? {};
  }

  forget(uid: number): void {
    this.#env.delete(uid);
    this.#resolving.delete(uid);
  }
}
