/**
 * Wakes on PostgreSQL (team mode, #27): the SQL of store/wakes.ts with `$n` placeholders (json_each
 * → `= ANY($n)`, json_extract → `->>`, `sum(a > b)` → `count(*) FILTER`, lastInsertRowid →
 * RETURNING id). Claims stay single guarded UPDATE … RETURNING statements: under READ COMMITTED a
 * second claimer waits for the first's row locks, then re-checks `state = 'ready'` and takes none.
 * Rows are the SQLite module's `RawWake` (views made by its `toWakeView`/`toDeliveryView`).
 * Design: docs/design.md §9 (team mode; the plan: docs/team-mode-plan.md).
 */
import type { WakesStore } from "../engine.js";
import { type NewWake, type PendingTurn, type RawWake, WAKE_COLUMNS, WAKE_FROM } from "../wakes.js";
import { all, one, type Queryable, run, statement } from "./statement.js";

const INSERT = statement(
  "wakes_insert",
  `INSERT INTO wakes (session_id, monitor_uid, dedupe_key, kind, text, payload, created_at)
   VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING id`,
);
const BY_SESSION = statement(
  "wakes_by_session",
  `SELECT ${WAKE_COLUMNS} ${WAKE_FROM} WHERE w.session_id = $1 ORDER BY w.id`,
);
const BY_ID = statement("wakes_by_id", `SELECT ${WAKE_COLUMNS} ${WAKE_FROM} WHERE w.session_id = $1 AND w.id = $2`);
const BY_IDS = statement(
  "wakes_by_ids",
  `SELECT ${WAKE_COLUMNS} ${WAKE_FROM} WHERE w.id = ANY($1::bigint[]) ORDER BY w.id`,
);
const LATEST_OF_MONITOR = statement(
  "wakes_latest_of_monitor",
  `SELECT ${WAKE_COLUMNS} ${WAKE_FROM} WHERE w.monitor_uid = $1 ORDER BY w.id DESC LIMIT 1`,
);
const CANCEL_READY = statement(
  "wakes_cancel_ready",
  "UPDATE wakes SET state = 'cancelled' WHERE monitor_uid = $1 AND state = 'ready' RETURNING id",
);
/** The sessions a host delivers to: its own (their adapters carry its seal: engine/seals.ts). */
const DELIVERS = "(s.host_id IS NULL OR s.host_id = $3)";
const PENDING_TURNS = statement(
  "wakes_pending_turns",
  `SELECT w.session_id, max(coalesce(w.next_attempt_at, 0)) AS due_at
   FROM wakes w JOIN sessions s ON s.id = w.session_id
   WHERE w.state = 'ready' AND (s.adapter::jsonb ->> 'kind') = ANY($1::text[])
     AND (s.busy_until IS NULL OR s.busy_until <= $2) AND ${DELIVERS}
     AND NOT EXISTS (SELECT 1 FROM wakes d WHERE d.session_id = w.session_id AND d.state = 'delivering')
   GROUP BY w.session_id
   UNION ALL
   SELECT s.id, s.busy_until FROM sessions s
   WHERE s.busy_until > $2 AND ${DELIVERS} AND EXISTS (SELECT 1 FROM wakes r WHERE r.session_id = s.id AND r.state = 'ready')`,
);
const TURN_IN_FLIGHT = statement(
  "wakes_turn_in_flight",
  "SELECT 1 AS one FROM wakes WHERE session_id = $1 AND state = 'delivering' LIMIT 1",
);
const NEXT_LEASE = statement("wakes_next_lease", "SELECT min(lease_until) AS at FROM wakes WHERE state = 'delivering'");
const CLAIM = statement(
  "wakes_claim",
  `UPDATE wakes SET state = 'delivering', attempts = attempts + 1, lease_until = $1, turn = $2, claim_token = $4,
     next_attempt_at = NULL
   WHERE session_id = $3 AND state = 'ready' RETURNING id`,
);
const CLAIM_DELIVERED = statement(
  "wakes_claim_delivered",
  `UPDATE wakes SET state = 'delivered', attempts = attempts + 1, turn = $1, claim_token = $5, delivered_at = $2,
     delivered_via = $3, next_attempt_at = NULL, last_error = NULL
   WHERE session_id = $4 AND state = 'ready' AND coalesce(next_attempt_at, 0) <= $2 RETURNING id`,
);
const DELIVERED = statement(
  "wakes_delivered",
  `UPDATE wakes SET state = 'delivered', delivered_at = $1, delivered_via = $2, output = $3, lease_until = NULL, last_error = NULL
   WHERE id = $4 AND state = 'delivering'`,
);
const FAILED = statement(
  "wakes_failed",
  `UPDATE wakes SET state = 'ready', next_attempt_at = $1, last_error = $2, output = $3, lease_until = NULL
   WHERE id = $4 AND state = 'delivering'`,
);
const REVIEW = statement(
  "wakes_review",
  `UPDATE wakes SET state = 'needs_review', last_error = $1, output = coalesce($2, output), lease_until = NULL, next_attempt_at = NULL
   WHERE id = $3 AND state IN ('delivering', 'ready')`,
);
const EXPIRED_LEASES = statement(
  "wakes_expired_leases",
  `UPDATE wakes SET state = 'needs_review', last_error = $1, lease_until = NULL
   WHERE state = 'delivering' AND lease_until <= $2 RETURNING id`,
);
const RELEASE = statement(
  "wakes_release",
  `UPDATE wakes SET state = 'ready', attempts = greatest(attempts - 1, 0), lease_until = NULL, last_error = NULL
   WHERE session_id = $1 AND claim_token = $2 AND (state = 'delivering' OR (state = 'needs_review' AND last_error = $3))
   RETURNING id`,
);
const DELIVERED_LATE = statement(
  "wakes_delivered_late",
  `UPDATE wakes SET state = 'delivered', delivered_at = $1, delivered_via = $2, output = $3, last_error = NULL
   WHERE id = $4 AND turn = $5 AND state = 'needs_review' AND last_error = $6`,
);
const CLAIMED_BY = statement(
  "wakes_claimed_by",
  "SELECT id FROM wakes WHERE session_id = $1 AND claim_token = $2 AND state IN ('delivering', 'delivered') ORDER BY id",
);
const RETRY = statement(
  "wakes_retry",
  `UPDATE wakes SET state = 'ready', attempts = 0, resends = resends + 1, next_attempt_at = NULL, last_error = NULL
   WHERE id = $1 AND state = 'needs_review'`,
);
const DISMISS = statement(
  "wakes_dismiss",
  `UPDATE wakes SET state = 'cancelled', dismissed_at = $1, next_attempt_at = NULL
   WHERE id = $2 AND (state = 'needs_review' OR (state = 'ready' AND attempts > 0))`,
);
const LATEST_OF_MONITORS = statement(
  "wakes_latest_of_monitors",
  `SELECT ${WAKE_COLUMNS} ${WAKE_FROM} WHERE w.id IN (
     SELECT max(id) FROM wakes WHERE monitor_uid = ANY($1::bigint[]) GROUP BY monitor_uid)`,
);
const COUNTS_OF_MONITORS = statement(
  "wakes_counts_of_monitors",
  `SELECT monitor_uid AS uid, count(*) AS n, count(*) FILTER (WHERE created_at > $1) AS recent FROM wakes
   WHERE monitor_uid = ANY($2::bigint[]) GROUP BY monitor_uid`,
);
const READY_COUNT = statement(
  "wakes_ready_count",
  "SELECT count(*) AS n FROM wakes WHERE session_id = $1 AND state = 'ready'",
);

const ids = (rows: Array<{ id: number }>) => rows.map((row) => row.id);

export class PgWakes implements WakesStore {
  constructor(private readonly db: Queryable) {}

  async insert(wake: NewWake): Promise<number | null> {
    const row = await one<{ id: number }>(this.db, INSERT, [
      wake.sessionId,
      wake.monitorUid,
      wake.dedupeKey,
      wake.kind,
      wake.text,
      JSON.stringify(wake.payload),
      wake.createdAt,
    ]);
    return row?.id ?? null;
  }

  async list(sessionId: string): Promise<RawWake[]> {
    return all<RawWake>(this.db, BY_SESSION, [sessionId]);
  }

  async get(sessionId: string, id: number): Promise<RawWake | undefined> {
    return one<RawWake>(this.db, BY_ID, [sessionId, id]);
  }

  async byIds(wakeIds: number[]): Promise<RawWake[]> {
    return wakeIds.length === 0 ? [] : all<RawWake>(this.db, BY_IDS, [wakeIds]);
  }

  async latestOfMonitors(monitorUids: readonly number[]): Promise<Map<number, RawWake>> {
    const rows = await all<RawWake>(this.db, LATEST_OF_MONITORS, [monitorUids]);
    return new Map(rows.map((row) => [row.monitor_uid, row]));
  }

  async countsOfMonitors(
    monitorUids: readonly number[],
    since: number,
  ): Promise<Map<number, { n: number; recent: number }>> {
    const rows = await all<{ uid: number; n: number; recent: number }>(this.db, COUNTS_OF_MONITORS, [
      since,
      monitorUids,
    ]);
    return new Map(rows.map((row) => [row.uid, row]));
  }

  async latestOfMonitor(monitorUid: number): Promise<RawWake | undefined> {
    return one<RawWake>(this.db, LATEST_OF_MONITOR, [monitorUid]);
  }

  async cancelReady(monitorUid: number): Promise<number[]> {
    return ids(await all<{ id: number }>(this.db, CANCEL_READY, [monitorUid]));
  }

  async pendingTurns(pushKinds: readonly string[], now: number, host: string): Promise<PendingTurn[]> {
    const rows = await all<{ session_id: string; due_at: number }>(this.db, PENDING_TURNS, [pushKinds, now, host]);
    return rows.map((row) => ({ sessionId: row.session_id, dueAt: row.due_at }));
  }

  async turnInFlight(sessionId: string): Promise<boolean> {
    return (await one<{ one: number }>(this.db, TURN_IN_FLIGHT, [sessionId])) !== undefined;
  }

  async nextLeaseExpiry(): Promise<number | null> {
    return (await one<{ at: number | null }>(this.db, NEXT_LEASE))?.at ?? null;
  }

  async claim(sessionId: string, turn: number, leaseUntil: number, token: string | null = null): Promise<RawWake[]> {
    return this.byIds(ids(await all<{ id: number }>(this.db, CLAIM, [leaseUntil, turn, sessionId, token])));
  }

  async claimDelivered(
    sessionId: string,
    turn: number,
    now: number,
    via: string,
    token: string | null = null,
  ): Promise<RawWake[]> {
    return this.byIds(ids(await all<{ id: number }>(this.db, CLAIM_DELIVERED, [turn, now, via, sessionId, token])));
  }

  async markDelivered(id: number, now: number, via: string, output: string | null): Promise<boolean> {
    return (await run(this.db, DELIVERED, [now, via, output, id])) > 0;
  }

  async markFailed(id: number, nextAttemptAt: number, error: string, output: string | null): Promise<boolean> {
    return (await run(this.db, FAILED, [nextAttemptAt, error, output, id])) > 0;
  }

  async markReview(id: number, error: string, output: string | null = null): Promise<boolean> {
    return (await run(this.db, REVIEW, [error, output, id])) > 0;
  }

  async expireLeases(now: number, error: string): Promise<number[]> {
    return ids(await all<{ id: number }>(this.db, EXPIRED_LEASES, [error, now]));
  }

  async release(sessionId: string, token: string, interrupted: string): Promise<RawWake[]> {
    return this.byIds(ids(await all<{ id: number }>(this.db, RELEASE, [sessionId, token, interrupted])));
  }

  async markDeliveredLate(
    id: number,
    turn: number,
    interrupted: string,
    delivered: { now: number; via: string; output: string | null },
  ): Promise<boolean> {
    return (
      (await run(this.db, DELIVERED_LATE, [delivered.now, delivered.via, delivered.output, id, turn, interrupted])) > 0
    );
  }

  async claimedBy(sessionId: string, token: string): Promise<RawWake[]> {
    return this.byIds(ids(await all<{ id: number }>(this.db, CLAIMED_BY, [sessionId, token])));
  }

  async retry(id: number): Promise<boolean> {
    return (await run(this.db, RETRY, [id])) > 0;
  }

  async dismiss(id: number, now: number): Promise<boolean> {
    return (await run(this.db, DISMISS, [now, id])) > 0;
  }

  async readyCount(sessionId: string): Promise<number> {
    return (await one<{ n: number }>(this.db, READY_COUNT, [sessionId]))?.n ?? 0;
  }
}
