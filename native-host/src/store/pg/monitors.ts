/**
 * Monitors and their triggers on PostgreSQL (team mode, #27): the SQL of store/monitors.ts with `$n`
 * placeholders; SQLite's json_each, json_set/json_remove and scalar max() become `= ANY($n)`,
 * jsonb operators and greatest(). Rows mapped by the SQLite module's `toMonitorRecord`.
 * Design: docs/design.md §9 (team mode; the plan: docs/team-mode-plan.md).
 */
import type { SourceKind } from "../../../../shared/schemas/sources.js";
import type { EndingReason, MonitorState } from "../../../../shared/schemas/views.js";
import type { MonitorsStore } from "../engine.js";
import {
  type CheckRecord,
  INTERRUPTED_KEY,
  type InterruptedCheck,
  MONITOR_SELECT,
  type MonitorRecord,
  type NewMonitor,
  type RawMonitor,
  sandboxText,
  type TriggerRecord,
  toMonitorRecord,
} from "../monitors.js";
import { all, one, type Queryable, run, statement } from "./statement.js";

/** SQLite's MINE with the host as parameter `$n`: this host's triggers and the host-free ones. */
const mine = (n: number) => `(t.host_id IS NULL OR t.host_id = $${n})`;

const INSERT_MONITOR = statement(
  "monitors_insert",
  `INSERT INTO monitors (session_id, id, name, kind, source, continuation, interval_ms, timeout_ms, created_at)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING uid`,
);
const INSERT_TRIGGER = statement(
  "monitors_insert_trigger",
  "INSERT INTO triggers (monitor_uid, mode, next_due_at, deadline_at, host_id, sandbox) VALUES ($1, $2, $3, $4, $5, $6)",
);
const BY_ID = statement("monitors_by_id", `${MONITOR_SELECT} WHERE m.session_id = $1 AND m.id = $2`);
const BY_UID = statement("monitors_by_uid", `${MONITOR_SELECT} WHERE m.uid = $1`);
const BY_UIDS = statement("monitors_by_uids", `${MONITOR_SELECT} WHERE m.uid = ANY($1::bigint[])`);
const COUNT_POLLED = statement(
  "monitors_count_polled",
  "SELECT count(*) AS n FROM triggers WHERE mode = 'poll' AND next_due_at IS NOT NULL",
);
const COUNT_DUE = statement(
  "monitors_count_due",
  `SELECT count(*) AS n FROM triggers t JOIN monitors m ON m.uid = t.monitor_uid WHERE t.next_due_at <= $1 AND (t.lease_until IS NULL OR t.lease_until < $1) AND m.state = 'waiting' AND ${mine(2)}`,
);
const BY_SESSION = statement("monitors_by_session", `${MONITOR_SELECT} WHERE m.session_id = $1 ORDER BY m.uid`);
const COUNT_ACTIVE = statement(
  "monitors_count_active",
  "SELECT count(*) AS n FROM monitors m JOIN triggers t ON t.monitor_uid = m.uid WHERE m.session_id = $1 AND m.kind = ANY($2::text[])",
);
const SET_STATE = statement("monitors_set_state", "UPDATE monitors SET state = $1 WHERE uid = $2 AND state = $3");
const DUE = statement(
  "monitors_due",
  `${MONITOR_SELECT} WHERE t.next_due_at <= $1 AND (t.lease_until IS NULL OR t.lease_until < $1) AND m.state = 'waiting' AND ${mine(3)} ORDER BY t.next_due_at LIMIT $2`,
);
const LEASE = statement(
  "monitors_lease",
  "UPDATE triggers SET lease_until = $1, lease_owner = $3 WHERE monitor_uid = $2 AND (lease_until IS NULL OR lease_until < $4)",
);
const NEXT_DUE = statement(
  "monitors_next_due",
  `SELECT min(at) AS at FROM (
     SELECT min(t.next_due_at) AS at FROM triggers t WHERE t.next_due_at IS NOT NULL AND t.lease_until IS NULL AND ${mine(1)}
     UNION ALL
     SELECT min(greatest(t.next_due_at, t.lease_until + 1)) FROM triggers t
      WHERE t.lease_until IS NOT NULL AND t.next_due_at IS NOT NULL AND ${mine(1)}) AS times`,
);
const NEXT_DEADLINE = statement("monitors_next_deadline", "SELECT min(deadline_at) AS at FROM triggers");
const EXPIRED = statement("monitors_expired", `${MONITOR_SELECT} WHERE t.deadline_at <= $1 ORDER BY t.deadline_at`);
const RECORD_OBSERVATION = statement(
  "monitors_record_observation",
  "UPDATE monitors SET last_observation = $1, last_check_at = $2, last_error = NULL WHERE uid = $3",
);
const RECORD_ERROR = statement(
  "monitors_record_error",
  "UPDATE monitors SET last_error = $1, error_count = error_count + 1, last_check_at = $2 WHERE uid = $3",
);
const UPDATE_TRIGGER = statement(
  "monitors_update_trigger",
  `UPDATE triggers SET polls = polls + 1, lease_until = NULL, next_due_at = CASE WHEN next_due_at IS NULL THEN NULL ELSE $1::bigint END,
   unrunnable_streak = $2, condition_state = $3 WHERE monitor_uid = $4`,
);
const END = statement(
  "monitors_end",
  "UPDATE monitors SET ending_reason = $1, ending_at = $2, ending_detail = $3, state = $4 WHERE uid = $5 AND ending_reason IS NULL AND state = $6",
);
const DELETE_TRIGGER = statement("monitors_delete_trigger", "DELETE FROM triggers WHERE monitor_uid = $1");
const SET_NEXT_DUE = statement("monitors_set_next_due", "UPDATE triggers SET next_due_at = $1 WHERE monitor_uid = $2");
const SET_SEAL = statement("monitors_set_seal", "UPDATE triggers SET seal = $1 WHERE monitor_uid = $2");
const CLEAR_LEASES = statement(
  "monitors_clear_leases",
  "UPDATE triggers SET lease_until = NULL WHERE lease_until IS NOT NULL AND (lease_owner IS NULL OR lease_owner = $1)",
);
// The count is kept as a JSON string, as SQLite's json_set(…, CAST(… AS TEXT)) keeps it.
const INTERRUPT_LEASES = statement(
  "monitors_interrupt_leases",
  `UPDATE triggers SET lease_until = NULL,
     condition_state = jsonb_set(condition_state::jsonb, '{${INTERRUPTED_KEY}}',
       to_jsonb((coalesce((condition_state::jsonb ->> '${INTERRUPTED_KEY}')::bigint, 0) + 1)::text))::text
   WHERE lease_until IS NOT NULL AND (lease_owner IS NULL OR lease_owner = $1)
   RETURNING monitor_uid AS uid, (condition_state::jsonb ->> '${INTERRUPTED_KEY}')::bigint AS interrupted`,
);
const ARMED_OF_MODE = statement(
  "monitors_armed_of_mode",
  `${MONITOR_SELECT} WHERE t.mode = $1 AND ${mine(2)} ORDER BY m.uid`,
);
const DELETE = statement("monitors_delete", "DELETE FROM monitors WHERE uid = $1");
const END_LEASE = statement(
  "monitors_end_lease",
  `UPDATE triggers SET lease_until = NULL, condition_state = (condition_state::jsonb - '${INTERRUPTED_KEY}')::text
   WHERE monitor_uid = $1`,
);
const SET_WAKED_SEQ = statement(
  "monitors_set_waked_seq",
  "UPDATE monitors SET waked_seq = greatest(waked_seq, $1) WHERE uid = $2",
);
const MARK_CLEARED = statement(
  "monitors_mark_cleared",
  "UPDATE monitors SET cleared_at = $1 WHERE uid = ANY($2::bigint[]) AND cleared_at IS NULL RETURNING id",
);
const LOCK = statement("monitors_lock", "SELECT 1 AS one FROM monitors WHERE uid = $1 FOR UPDATE");

export class PgMonitors implements MonitorsStore {
  constructor(private readonly db: Queryable) {}

  async insert(monitor: NewMonitor): Promise<number> {
    const row = await one<{ uid: number }>(this.db, INSERT_MONITOR, [
      monitor.sessionId,
      monitor.id,
      monitor.name,
      monitor.kind,
      JSON.stringify(monitor.source),
      monitor.continuation,
      monitor.intervalMs,
      monitor.timeoutMs,
      monitor.createdAt,
    ]);
    if (!row) throw new Error(`Expected INSERT INTO monitors to return a uid for ${monitor.id}, got none`);
    await run(this.db, INSERT_TRIGGER, [
      row.uid,
      monitor.mode,
      monitor.nextDueAt,
      monitor.deadlineAt,
      monitor.hostId ?? null,
      sandboxText(monitor.sandbox),
    ]);
    return row.uid;
  }

  async get(sessionId: string, id: string): Promise<MonitorRecord | undefined> {
    const raw = await one<RawMonitor>(this.db, BY_ID, [sessionId, id]);
    return raw && toMonitorRecord(raw);
  }

  async countDue(now: number, host: string): Promise<number> {
    return (await one<{ n: number }>(this.db, COUNT_DUE, [now, host]))?.n ?? 0;
  }

  async countPolled(): Promise<number> {
    return (await one<{ n: number }>(this.db, COUNT_POLLED))?.n ?? 0;
  }

  async byUid(uid: number): Promise<MonitorRecord | undefined> {
    const raw = await one<RawMonitor>(this.db, BY_UID, [uid]);
    return raw && toMonitorRecord(raw);
  }

  async byUids(uids: readonly number[]): Promise<MonitorRecord[]> {
    const rows = await all<RawMonitor>(this.db, BY_UIDS, [uids]);
    const found = new Map(rows.map((raw) => [raw.uid, toMonitorRecord(raw)]));
    return uids.flatMap((uid) => found.get(uid) ?? []);
  }

  async markCleared(uids: readonly number[], now: number): Promise<string[]> {
    return (await all<{ id: string }>(this.db, MARK_CLEARED, [now, [...uids]])).map((row) => row.id);
  }

  async list(sessionId: string): Promise<MonitorRecord[]> {
    return (await all<RawMonitor>(this.db, BY_SESSION, [sessionId])).map(toMonitorRecord);
  }

  async countActive(sessionId: string, kinds: readonly SourceKind[]): Promise<number> {
    return (await one<{ n: number }>(this.db, COUNT_ACTIVE, [sessionId, kinds]))?.n ?? 0;
  }

  async setState(uid: number, from: MonitorState, to: MonitorState): Promise<boolean> {
    return (await run(this.db, SET_STATE, [to, uid, from])) > 0;
  }

  async due(now: number, limit: number, host: string): Promise<MonitorRecord[]> {
    return (await all<RawMonitor>(this.db, DUE, [now, limit, host])).map(toMonitorRecord);
  }

  async lease(uid: number, until: number, host: string, now: number): Promise<boolean> {
    return (await run(this.db, LEASE, [until, uid, host, now])) > 0;
  }

  async nextTimes(host: string): Promise<{ due: number | null; deadline: number | null }> {
    const due = await one<{ at: number | null }>(this.db, NEXT_DUE, [host]);
    const deadline = await one<{ at: number | null }>(this.db, NEXT_DEADLINE);
    return { due: due?.at ?? null, deadline: deadline?.at ?? null };
  }

  async recordLeaseEnd(uid: number): Promise<void> {
    await run(this.db, END_LEASE, [uid]);
  }

  async expired(now: number): Promise<MonitorRecord[]> {
    return (await all<RawMonitor>(this.db, EXPIRED, [now])).map(toMonitorRecord);
  }

  async recordCheck(uid: number, check: CheckRecord): Promise<void> {
    if (check.error) await run(this.db, RECORD_ERROR, [check.error, check.at, uid]);
    else await run(this.db, RECORD_OBSERVATION, [JSON.stringify(check.observation ?? null), check.at, uid]);
    // A recorded check ends any run of interrupted ones.
    const { [INTERRUPTED_KEY]: _, ...conditionState } = check.conditionState;
    await run(this.db, UPDATE_TRIGGER, [check.nextDueAt, check.unrunnableStreak, JSON.stringify(conditionState), uid]);
  }

  async end(
    uid: number,
    from: MonitorState,
    to: MonitorState,
    reason: EndingReason,
    detail: string | null,
    at: number,
  ): Promise<boolean> {
    const changed = (await run(this.db, END, [reason, at, detail, to, uid, from])) > 0;
    if (changed) await run(this.db, DELETE_TRIGGER, [uid]);
    return changed;
  }

  async setNextDue(uid: number, at: number | null): Promise<void> {
    await run(this.db, SET_NEXT_DUE, [at, uid]);
  }

  async setSeal(uid: number, seal: string): Promise<void> {
    await run(this.db, SET_SEAL, [seal, uid]);
  }

  async clearLeases(host: string): Promise<number> {
    return run(this.db, CLEAR_LEASES, [host]);
  }

  async interruptLeases(host: string): Promise<InterruptedCheck[]> {
    return all<InterruptedCheck & Record<string, unknown>>(this.db, INTERRUPT_LEASES, [host]);
  }

  async armedOfMode(mode: TriggerRecord["mode"], host: string): Promise<MonitorRecord[]> {
    return (await all<RawMonitor>(this.db, ARMED_OF_MODE, [mode, host])).map(toMonitorRecord);
  }

  async delete(uid: number): Promise<void> {
    await run(this.db, DELETE, [uid]);
  }

  async setWakedSeq(uid: number, seq: number): Promise<void> {
    await run(this.db, SET_WAKED_SEQ, [seq, uid]);
  }

  /** SELECT … FOR UPDATE: the monitor (and what hangs off it) is this transaction's until it ends. */
  async lockForUpdate(uid: number): Promise<boolean> {
    return (await run(this.db, LOCK, [uid])) > 0;
  }
}
