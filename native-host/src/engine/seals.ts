/**
 * Seals (#37): a host runs only what it armed itself. Every host holds the same database
 * credentials, so a row in the database says nothing about who wrote it; each host keeps a random
 * key in its 0700 home (`$VIGIL_HOME/host.key`, base/home.ts `ensureHostKey`) and seals, with
 * HMAC-SHA256, what decides what runs and with what power: a host-bound trigger's command or source
 * its sandbox, and a session's push adapter. Before a check, a watch or an adapter runs, the host verifies the
 * seal (constant-time); a row it cannot verify — a peer's INSERT, a seal copied onto another source,
 * a row made before seals on PostgreSQL — is refused, never run.
 * Design: docs/design.md §8, §9.1.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Adapter } from "../../../shared/schemas/inputs.js";
import { probeFor } from "../probes/registry.js";

export { UNSEALED_ADAPTER, UNSEALED_CHECK } from "../core/review-causes.js";

import type { MonitorRecord } from "../store/monitors.js";
import type { SessionRow } from "../store/sessions.js";
import { isHostBound } from "./arming.js";

/** What a trigger's seal is made over (the columns of a monitor and its trigger that matter). */
export type SealedTrigger = Pick<MonitorRecord, "uid" | "id" | "sessionId" | "kind" | "source"> & {
  trigger: Pick<NonNullable<MonitorRecord["trigger"]>, "sandbox"> | null;
};

/** What an adapter's seal is made over. */
export type SealedSession = Pick<SessionRow, "id" | "root" | "adapter" | "webhookSecret" | "sandbox">;

/** JSON with object keys sorted at every level: the same value always gives the same text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

/**
 * Everything a trigger's seal covers, in order: ONE list, so a column that comes to decide what
 * runs (or with what power) is covered by adding it here.
 */
export function sealedTriggerFields(row: SealedTrigger, hostId: string): unknown[] {
  return [
    "trigger",
    row.uid,
    row.id,
    row.sessionId,
    hostId,
    row.kind,
    canonicalJson(row.source),
    // The sandbox its commands run in: a peer that clears it would give the check the daemon's power.
    canonicalJson(row.trigger?.sandbox ?? null),
  ];
}

/** Everything an adapter's seal covers: where delivery runs (root) and what it runs or sends to. */
export function sealedSessionFields(row: SealedSession, hostId: string): unknown[] {
  return [
    "session",
    row.id,
    hostId,
    row.root,
    canonicalJson(row.adapter),
    row.webhookSecret,
    // The sandbox its agent reported: checks armed for it take theirs from it (engine/check-sandbox.ts).
    canonicalJson(row.sandbox ?? null),
  ];
}

/** Whether a monitor's checks run something only its host may: it must carry that host's seal. */
export function needsSeal(record: Pick<MonitorRecord, "kind" | "source">): boolean {
  const probe = probeFor(record.kind);
  return probe.mode !== "signal" && isHostBound({ source: record.source, probe });
}

/** Whether an adapter runs or sends something (inbox and MCP sessions are pulled: nothing runs). */
export function adapterRuns(adapter: Adapter): boolean {
  return adapter.kind !== "inbox" && adapter.kind !== "mcp";
}

export class Sealer {
  readonly #key: Buffer;

  constructor(
    key: Buffer,
    /** The host whose seals these are: a seal made for another host never verifies here. */
    readonly hostId: string,
  ) {
    this.#key = key;
  }

  #mac(fields: unknown[]): Buffer {
    return createHmac("sha256", this.#key).update(JSON.stringify(fields)).digest();
  }

  #verifies(fields: unknown[], seal: string | null): boolean {
    if (seal === null) return false;
    const given = Buffer.from(seal, "base64url");
    const expected = this.#mac(fields);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  sealTrigger(row: SealedTrigger): string {
    return this.#mac(sealedTriggerFields(row, this.hostId)).toString("base64url");
  }

  /** True for a monitor that needs no seal, or whose seal this host made over exactly these fields. */
  triggerVerifies(record: MonitorRecord): boolean {
    if (!needsSeal(record)) return true;
    return this.#verifies(sealedTriggerFields(record, this.hostId), record.trigger?.seal ?? null);
  }

  sealSession(row: SealedSession): string {
    return this.#mac(sealedSessionFields(row, this.hostId)).toString("base64url");
  }

  /** True for an adapter that runs nothing, or whose seal this host made over exactly these fields. */
  adapterVerifies(session: SessionRow): boolean {
    if (!adapterRuns(session.adapter)) return true;
    return this.sessionVerifies(session);
  }

  /**
   * True only for a session row this host sealed as it stands: every session this host makes or
   * changes is sealed, so a row a peer wrote or changed (its sandbox cleared or widened) is not.
   */
  sessionVerifies(session: SessionRow): boolean {
    return this.#verifies(sealedSessionFields(session, this.hostId), session.adapterSeal);
  }
}
