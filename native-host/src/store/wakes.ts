/**
 * Wakes: one delivery to a session. `dedupe_key` is UNIQUE and one ending wake per monitor is a
 * unique index: a second insert for the same fire is a no-op. Delivery state lives in columns
 * (`attempts`, `next_attempt_at`, `lease_until`); claims are single UPDATE … RETURNING statements
 * run inside immediate transactions.
 * Design: docs/design.md §6, §9.
 */
import type { DeliveryView, WakePayload, WakeState, WakeView } from "../../../shared/schemas/views.js";
import { iso } from "../base/iso.js";
import type { Db } from "./db.js";

export interface NewWake {
  sessionId: string;
  monitorUid: number;
  dedupeKey: string;
  kind: "events" | "ending";
  text: string;
  payload: Omit<WakePayload, "wakeId">;
  createdAt: number;
}

export interface RawWake {
  id: number;
  session_id: string;
  monitor_uid: number;
  monitor_id: string;
  kind: "events" | "ending";
  state: WakeState;
  text: string;
  payload: string;
  created_at: number;
  attempts: number;
  next_attempt_at: number | null;
  lease_until: number | null;
  turn: number | null;
  /** Manual retries (`vigil retry`): each makes the wake a new message. */
  resends: number;
  last_error: string | null;
  delivered_at: number | null;
  delivered_via: string | null;
  output: string | null;
  /** Set aside by the person (Dismiss): the wake is cancelled and never delivered. */
  dismissed_at: number | null;
}

export const wakeIdOf = (n: number): string => `wake-${n}`;

export function parseWakeId(id: string): number | null {
  const match = /^wake-(\d{1,15})$/.exec(id);
  return match ? Number(match[1]) : null;
}

export function toWakeView(raw: RawWake): WakeView {
  return {
    id: wakeIdOf(raw.id),
    sessionId: raw.session_id,
    state: raw.state,
    kind: raw.kind,
    monitors: [raw.monitor_id],
    text: raw.text,
    payload: { ...(JSON.parse(raw.payload) as Omit<WakePayload, "wakeId">), wakeId: wakeIdOf(raw.id) },
    createdAt: new Date(raw.created_at).toISOString(),
    attempts: raw.attempts,
    nextAttemptAt: iso(raw.next_attempt_at),
    lastError: raw.last_error,
    turn: raw.turn,
    deliveredAt: iso(raw.delivered_at),
    deliveredVia: raw.delivered_via,
    output: raw.output,
    ...(raw.dismissed_at === null ? {} : { dismissedAt: iso(raw.dismissed_at) as string }),
  };
}

/** What a monitor's delivery view reads of its latest wake (not its text, payload or output). */
export type DeliveryRow = Pick<
  RawWake,
  "id" | "monitor_uid" | "state" | "attempts" | "next_attempt_at" | "last_error" | "delivered_via" | "dismissed_at"
>;

export function toDeliveryView(raw: DeliveryRow): DeliveryView {
  return {
    wakeId: wakeIdOf(raw.id),
    state: raw.state,
    attempts: raw.attempts,
    nextAttemptAt: iso(raw.next_attempt_at),
    lastError: raw.last_error,
    deliveredVia: raw.delivered_via,
    ...(raw.dismissed_at === null ? {} : { dismissedAt: iso(raw.dismissed_at) as string }),
  };
}

export const WAKE_COLUMNS = "w.*, m.id AS monitor_id";
export const WAKE_FROM = "FROM wakes w JOIN monitors m ON m.uid = w.monitor_uid";
/** RETURNING cannot join, so claims return ids and the rows are read again. */
const BY_IDS = `SELECT ${WAKE_COLUMNS} ${WAKE_FROM} WHERE w.id IN (SELECT value FROM json_each(?)) ORDER BY w.id`;

/** A session with wakes to push, and the earliest time its next turn may start. */
export interface PendingTurn {
  sessionId: string;
  dueAt: number;
}

export class WakesTable {
  readonly #insert;
  readonly #bySession;
  readonly #byId;
  readonly #byIds;
  readonly #latestOfMonitor;
  readonly #cancelReady;
  readonly #pendingTurns;
  readonly #nextLease;
  readonly #turnInFlight;
  readonly #claim;
  readonly #claimDelivered;
  readonly #delivered;
  readonly #failed;
  readonly #review;
  readonly #expiredLeases;
  readonly #release;
  readonly #deliveredLate;
  readonly #claimedBy;
  readonly #retry;
  readonly #readyCount;
  readonly #dismiss;
  readonly #latestOfMonitors;
  readonly #countsOfMonitors;

  constructor(db: Db) {
    this.#insert = db.prepare(
      `INSERT INTO wakes (session_id, monitor_uid, dedupe_key, kind, text, payload, created_at)
       VALUES (@sessionId, @monitorUid, @dedupeKey, @kind, @text, @payload, @createdAt) ON CONFLICT DO NOTHING`,
    );
    this.#bySession = db.prepare<[string], RawWake>(
      `SELECT ${WAKE_COLUMNS} ${WAKE_FROM} WHERE w.session_id = ? ORDER BY w.id`,
    );
    this.#byId = db.prepare<[string, number], RawWake>(
      `SELECT ${WAKE_COLUMNS} ${WAKE_FROM} WHERE w.session_id = ? AND w.id = ?`,
    );
    this.#byIds = db.prepare<[string], RawWake>(BY_IDS);
    this.#latestOfMonitor = db.prepare<[number], RawWake>(
      `SELECT ${WAKE_COLUMNS} ${WAKE_FROM} WHERE w.monitor_uid = ? ORDER BY w.id DESC LIMIT 1`,
    );
    this.#cancelReady = db.prepare<[number], { id: number }>(
      "UPDATE wakes SET state = 'cancelled' WHERE monitor_uid = ? AND state = 'ready' RETURNING id",
    );
    // Sessions whose adapter pushes, with ready wakes, no turn in flight and no declared busy turn.
    // A session in backoff waits for its latest retry time, and every ready wake goes with it.
    // A session's pushes go out from its own host only: its adapter carries that host's seal (engine/seals.ts).
    const delivers = "(s.host_id IS NULL OR s.host_id = @host)";
    this.#pendingTurns = db.prepare<
      [{ kinds: string; now: number; host: string }],
      { session_id: string; due_at: number }
    >(
      `SELECT w.session_id, max(coalesce(w.next_attempt_at, 0)) AS due_at
       FROM wakes w JOIN sessions s ON s.id = w.session_id
       WHERE w.state = 'ready' AND json_extract(s.adapter, '$.kind') IN (SELECT value FROM json_each(@kinds))
         AND (s.busy_until IS NULL OR s.busy_until <= @now) AND ${delivers}
         AND NOT EXISTS (SELECT 1 FROM wakes d WHERE d.session_id = w.session_id AND d.state = 'delivering')
       GROUP BY w.session_id
       UNION ALL
       SELECT s.id, s.busy_until FROM sessions s
       WHERE s.busy_until > @now AND ${delivers} AND EXISTS (SELECT 1 FROM wakes r WHERE r.session_id = s.id AND r.state = 'ready')`,
    );
    this.#turnInFlight = db.prepare<[string], { one: number }>(
      "SELECT 1 AS one FROM wakes WHERE session_id = ? AND state = 'delivering' LIMIT 1",
    );
    this.#nextLease = db.prepare<[], { at: number | null }>(
      "SELECT min(lease_until) AS at FROM wakes WHERE state = 'delivering'",
    );
    this.#claim = db.prepare<[number, number, string | null, string], { id: number }>(
      `UPDATE wakes SET state = 'delivering', attempts = attempts + 1, lease_until = ?, turn = ?, claim_token = ?,
         next_attempt_at = NULL
       WHERE session_id = ? AND state = 'ready' RETURNING id`,
    );
    this.#claimDelivered = db.prepare<[number, string | null, number, string, string, number], { id: number }>(
      `UPDATE wakes SET state = 'delivered', attempts = attempts + 1, turn = ?, claim_token = ?, delivered_at = ?,
         delivered_via = ?, next_attempt_at = NULL, last_error = NULL
       WHERE session_id = ? AND state = 'ready' AND coalesce(next_attempt_at, 0) <= ? RETURNING id`,
    );
    this.#delivered = db.prepare(
      `UPDATE wakes SET state = 'delivered', delivered_at = ?, delivered_via = ?, output = ?, lease_until = NULL, last_error = NULL
       WHERE id = ? AND state = 'delivering'`,
    );
    this.#failed = db.prepare(
      `UPDATE wakes SET state = 'ready', next_attempt_at = ?, last_error = ?, output = ?, lease_until = NULL
       WHERE id = ? AND state = 'delivering'`,
    );
    this.#review = db.prepare(
      `UPDATE wakes SET state = 'needs_review', last_error = ?, output = coalesce(?, output), lease_until = NULL, next_attempt_at = NULL
       WHERE id = ? AND state IN ('delivering', 'ready')`,
    );
    this.#expiredLeases = db.prepare<[string, number], { id: number }>(
      `UPDATE wakes SET state = 'needs_review', last_error = ?, lease_until = NULL
       WHERE state = 'delivering' AND lease_until <= ? RETURNING id`,
    );
    // Within the session (its index): a claim's token is read only after a lost commit.
    this.#release = db.prepare<[string, string, string], { id: number }>(
      `UPDATE wakes SET state = 'ready', attempts = max(attempts - 1, 0), lease_until = NULL, last_error = NULL
       WHERE session_id = ? AND claim_token = ? AND (state = 'delivering' OR (state = 'needs_review' AND last_error = ?))
       RETURNING id`,
    );
    this.#deliveredLate = db.prepare(
      `UPDATE wakes SET state = 'delivered', delivered_at = ?, delivered_via = ?, output = ?, last_error = NULL
       WHERE id = ? AND turn = ? AND state = 'needs_review' AND last_error = ?`,
    );
    this.#claimedBy = db.prepare<[string, string], { id: number }>(
      "SELECT id FROM wakes WHERE session_id = ? AND claim_token = ? AND state IN ('delivering', 'delivered') ORDER BY id",
    );
    this.#retry = db.prepare(
      `UPDATE wakes SET state = 'ready', attempts = 0, resends = resends + 1, next_attempt_at = NULL, last_error = NULL
       WHERE id = ? AND state = 'needs_review'`,
    );
    // Only a wake a person must decide on: one that needs review, or one whose delivery failed and is retried.
    this.#dismiss = db.prepare(
      `UPDATE wakes SET state = 'cancelled', dismissed_at = ?, next_attempt_at = NULL
       WHERE id = ? AND (state = 'needs_review' OR (state = 'ready' AND attempts > 0))`,
    );
    // A page of the panel reads only what the delivery view shows: a wake's text, payload and output
    // can be long, and are not in the list.
    this.#latestOfMonitors = db.prepare<[string], DeliveryRow>(
      `SELECT w.id, w.monitor_uid, w.state, w.attempts, w.next_attempt_at, w.last_error, w.delivered_via,
         w.dismissed_at
       FROM wakes w WHERE w.id IN (
         SELECT max(id) FROM wakes WHERE monitor_uid IN (SELECT value FROM json_each(?)) GROUP BY monitor_uid)`,
    );
    this.#countsOfMonitors = db.prepare<[number, string], { uid: number; n: number; recent: number }>(
      `SELECT monitor_uid AS uid, count(*) AS n, sum(created_at > ?) AS recent FROM wakes
       WHERE monitor_uid IN (SELECT value FROM json_each(?)) GROUP BY monitor_uid`,
    );
    this.#readyCount = db.prepare<[string], { n: number }>(
      "SELECT count(*) AS n FROM wakes WHERE session_id = ? AND state = 'ready'",
    );
  }

  /** Inserts the wake unless one for the same fire exists; returns its number or null. */
  insert(wake: NewWake): number | null {
    const result = this.#insert.run({ ...wake, payload: JSON.stringify(wake.payload) });
    return result.changes > 0 ? Number(result.lastInsertRowid) : null;
  }

  list(sessionId: string): RawWake[] {
    return this.#bySession.all(sessionId);
  }

  get(sessionId: string, id: number): RawWake | undefined {
    return this.#byId.get(sessionId, id);
  }

  byIds(ids: number[]): RawWake[] {
    return ids.length === 0 ? [] : this.#byIds.all(JSON.stringify(ids));
  }

  /** The latest wake of each of these monitors (one statement for a page of them), by monitor uid. */
  latestOfMonitors(monitorUids: readonly number[]): Map<number, DeliveryRow> {
    return new Map(this.#latestOfMonitors.all(JSON.stringify(monitorUids)).map((row) => [row.monitor_uid, row]));
  }

  /** How many wakes each of these monitors has, and how many since `since`, by monitor uid. */
  countsOfMonitors(monitorUids: readonly number[], since: number): Map<number, { n: number; recent: number }> {
    return new Map(this.#countsOfMonitors.all(since, JSON.stringify(monitorUids)).map((row) => [row.uid, row]));
  }

  latestOfMonitor(monitorUid: number): RawWake | undefined {
    return this.#latestOfMonitor.get(monitorUid);
  }

  cancelReady(monitorUid: number): number[] {
    return this.#cancelReady.all(monitorUid).map((row) => row.id);
  }

  /**
   * Sessions of `host` (and webhook sessions, which any host may deliver: team mode) with ready
   * wakes for a push adapter, and when their next turn may start.
   */
  pendingTurns(pushKinds: readonly string[], now: number, host: string): PendingTurn[] {
    return this.#pendingTurns
      .all({ kinds: JSON.stringify(pushKinds), now, host })
      .map((row) => ({ sessionId: row.session_id, dueAt: row.due_at }));
  }

  nextLeaseExpiry(): number | null {
    return this.#nextLease.get()?.at ?? null;
  }

  /** Whether a turn of the session is being delivered (checked again under its lock before a claim). */
  turnInFlight(sessionId: string): boolean {
    return this.#turnInFlight.get(sessionId) !== undefined;
  }

  /**
   * Takes every ready wake of the session into one turn (state delivering, with a lease). `token`,
   * new for each claim, marks what it took (`claimedBy`, `release`).
   */
  claim(sessionId: string, turn: number, leaseUntil: number, token: string | null = null): RawWake[] {
    return this.byIds(this.#claim.all(leaseUntil, turn, token, sessionId).map((row) => row.id));
  }

  /** A pull (inbox or MCP) takes every ready wake and marks it delivered in the same statement. */
  claimDelivered(sessionId: string, turn: number, now: number, via: string, token: string | null = null): RawWake[] {
    return this.byIds(this.#claimDelivered.all(turn, token, now, via, sessionId, now).map((row) => row.id));
  }

  markDelivered(id: number, now: number, via: string, output: string | null): boolean {
    return this.#delivered.run(now, via, output, id).changes > 0;
  }

  markFailed(id: number, nextAttemptAt: number, error: string, output: string | null): boolean {
    return this.#failed.run(nextAttemptAt, error, output, id).changes > 0;
  }

  markReview(id: number, error: string, output: string | null = null): boolean {
    return this.#review.run(error, output, id).changes > 0;
  }

  /** Deliveries whose lease ran out (the daemon died during them) become needs_review. */
  expireLeases(now: number, error: string): number[] {
    return this.#expiredLeases.all(error, now).map((row) => row.id);
  }

  /**
   * The wakes of a claim never pushed (the answer to its commit was lost, so the claimer went on
   * as if it had failed), by the claim's token: ready again and the attempt uncounted, also when
   * their lease has since run out (`interrupted`: the error that expiry wrote).
   */
  release(sessionId: string, token: string, interrupted: string): RawWake[] {
    return this.byIds(this.#release.all(sessionId, token, interrupted).map((row) => row.id));
  }

  /**
   * A push's success recorded after its lease ran out (the database was away until then): the wake
   * is delivered after all, unless a person has retried or dismissed it meanwhile.
   */
  markDeliveredLate(
    id: number,
    turn: number,
    interrupted: string,
    delivered: { now: number; via: string; output: string | null },
  ): boolean {
    return this.#deliveredLate.run(delivered.now, delivered.via, delivered.output, id, turn, interrupted).changes > 0;
  }

  /** The wakes of the session the claim with this token took and still holds (none: it did not commit). */
  claimedBy(sessionId: string, token: string): RawWake[] {
    return this.byIds(this.#claimedBy.all(sessionId, token).map((row) => row.id));
  }

  retry(id: number): boolean {
    return this.#retry.run(id).changes > 0;
  }

  /** Sets a wake aside for good (cancelled, never delivered); false unless it needed review or was being retried. */
  dismiss(id: number, now: number): boolean {
    return this.#dismiss.run(now, id).changes > 0;
  }

  readyCount(sessionId: string): number {
    return this.#readyCount.get(sessionId)?.n ?? 0;
  }
}
