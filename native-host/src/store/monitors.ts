/**
 * Monitors: the work record (`monitors`) and its trigger (`triggers`), one row each (design.md §2).
 * Schedule and lease state live in trigger columns; the scheduler reads them through the
 * indexes on `next_due_at` and `deadline_at`.
 */

import type { ConditionState } from "../../../shared/conditions.js";
import type { CheckSandbox } from "../../../shared/schemas/sandbox.js";
import type { Source, SourceKind } from "../../../shared/schemas/sources.js";
import type { EndingReason, MonitorState } from "../../../shared/schemas/views.js";
import type { Db } from "./db.js";
import { wideRows } from "./wide-rows.js";

/** A trigger's sandbox column: JSON, or NULL for none. */
export const sandboxText = (sandbox: CheckSandbox | null | undefined): string | null =>
  sandbox ? JSON.stringify(sandbox) : null;

export interface MonitorRecord {
  uid: number;
  sessionId: string;
  id: string;
  name: string;
  kind: SourceKind;
  source: Source;
  continuation: string | null;
  intervalMs: number | null;
  timeoutMs: number;
  createdAt: number;
  state: MonitorState;
  eventCount: number;
  wakedSeq: number;
  lastEvent: string | null;
  lastObservation: unknown;
  lastCheckAt: number | null;
  lastError: string | null;
  errorCount: number;
  endingReason: EndingReason | null;
  endingAt: number | null;
  endingDetail: string | null;
  /** Cleared from the side panel's list (Clear ended); the record stays. */
  cleared: boolean;
  trigger: TriggerRecord | null;
}

export interface TriggerRecord {
  mode: "poll" | "stream" | "signal";
  nextDueAt: number | null;
  deadlineAt: number;
  leaseUntil: number | null;
  polls: number;
  unrunnableStreak: number;
  conditionState: ConditionState;
  /** The host whose machine its checks need (team mode); null: any host may check it. */
  hostId: string | null;
  /** Its host's seal over what it runs (engine/seals.ts); null: not sealed. */
  seal: string | null;
  /** The sandbox its commands run in, fixed when it was armed (issue #37); null: none. */
  sandbox: CheckSandbox | null;
}

export interface RawMonitor {
  uid: number;
  session_id: string;
  id: string;
  name: string;
  kind: string;
  source: string;
  continuation: string | null;
  interval_ms: number | null;
  timeout_ms: number;
  created_at: number;
  state: string;
  event_count: number;
  waked_seq: number;
  last_event: string | null;
  last_observation: string | null;
  last_check_at: number | null;
  last_error: string | null;
  error_count: number;
  ending_reason: string | null;
  ending_at: number | null;
  ending_detail: string | null;
  cleared_at: number | null;
  mode: string | null;
  next_due_at: number | null;
  deadline_at: number | null;
  lease_until: number | null;
  polls: number | null;
  unrunnable_streak: number | null;
  condition_state: string | null;
  host_id: string | null;
  seal: string | null;
  sandbox: string | null;
}

export function toMonitorRecord(raw: RawMonitor): MonitorRecord {
  return {
    uid: raw.uid,
    sessionId: raw.session_id,
    id: raw.id,
    name: raw.name,
    kind: raw.kind as SourceKind,
    source: JSON.parse(raw.source) as Source,
    continuation: raw.continuation,
    intervalMs: raw.interval_ms,
    timeoutMs: raw.timeout_ms,
    createdAt: raw.created_at,
    state: raw.state as MonitorState,
    eventCount: raw.event_count,
    wakedSeq: raw.waked_seq,
    lastEvent: raw.last_event,
    lastObservation: raw.last_observation === null ? null : JSON.parse(raw.last_observation),
    lastCheckAt: raw.last_check_at,
    lastError: raw.last_error,
    errorCount: raw.error_count,
    endingReason: raw.ending_reason as EndingReason | null,
    endingAt: raw.ending_at,
    endingDetail: raw.ending_detail,
    cleared: raw.cleared_at !== null,
    trigger:
      raw.mode === null
        ? null
        : {
            mode: raw.mode as TriggerRecord["mode"],
            nextDueAt: raw.next_due_at,
            deadlineAt: raw.deadline_at as number,
            leaseUntil: raw.lease_until,
            polls: raw.polls ?? 0,
            unrunnableStreak: raw.unrunnable_streak ?? 0,
            conditionState: JSON.parse(raw.condition_state ?? "{}") as ConditionState,
            hostId: raw.host_id,
            seal: raw.seal,
            sandbox: raw.sandbox === null ? null : (JSON.parse(raw.sandbox) as CheckSandbox),
          },
  };
}

export const MONITOR_SELECT =
  "SELECT m.*, t.mode, t.next_due_at, t.deadline_at, t.lease_until, t.polls, t.unrunnable_streak, t.condition_state, t.host_id, t.seal, t.sandbox FROM monitors m LEFT JOIN triggers t ON t.monitor_uid = m.uid";

export type NewMonitor = Pick<
  MonitorRecord,
  "sessionId" | "id" | "name" | "kind" | "source" | "continuation" | "intervalMs" | "timeoutMs" | "createdAt"
> &
  Pick<TriggerRecord, "mode" | "nextDueAt" | "deadlineAt"> & {
    /** The host whose machine its checks need (team mode); null or absent: any host may run them. */
    hostId?: string | null;
    /** The sandbox its commands run in (issue #37); null or absent: none. */
    sandbox?: CheckSandbox | null;
  };

/**
 * Which triggers a host works (team mode, design.md §9.1): its own and the host-free ones. On
 * SQLite there is one host, so the filter keeps every row; the statements are the same on both
 * engines.
 */
export const MINE = "(t.host_id IS NULL OR t.host_id = @host)";

/**
 * Where the run of checks left in flight by unclean stops is kept, in `condition_state` beside the
 * `changed` digests and the run of met checks ("#met"): counted at start, cleared by any recorded
 * check. Read by the engine at start (design.md §4.3).
 */
export const INTERRUPTED_KEY = "#interrupted";

/** A check a stop left in flight, and how many in a row that monitor has had. */
export interface InterruptedCheck {
  uid: number;
  interrupted: number;
}

export interface CheckRecord {
  at: number;
  nextDueAt: number;
  observation?: unknown;
  error?: string | null;
  unrunnableStreak: number;
  conditionState: ConditionState;
}

export class MonitorsTable {
  readonly #insertMonitor;
  readonly #insertTrigger;
  readonly #byId;
  readonly #byUid;
  readonly #countPolled;
  readonly #countDue;
  readonly #bySession;
  readonly #countActive;
  readonly #setState;
  readonly #due;
  readonly #lease;
  readonly #nextDue;
  readonly #nextDeadline;
  readonly #expired;
  readonly #recordObservation;
  readonly #recordError;
  readonly #updateTrigger;
  readonly #end;
  readonly #deleteTrigger;
  readonly #setNextDue;
  readonly #clearLeases;
  readonly #interruptLeases;
  readonly #activeOfMode;
  readonly #setWakedSeq;
  readonly #endLease;
  readonly #delete;
  readonly #markCleared;
  readonly #byUids;
  readonly #setSeal;

  constructor(db: Db) {
    this.#insertMonitor = db.prepare(
      `INSERT INTO monitors (session_id, id, name, kind, source, continuation, interval_ms, timeout_ms, created_at)
       VALUES (@sessionId, @id, @name, @kind, @source, @continuation, @intervalMs, @timeoutMs, @createdAt)`,
    );
    this.#insertTrigger = db.prepare(
      "INSERT INTO triggers (monitor_uid, mode, next_due_at, deadline_at, host_id, sandbox) VALUES (?, ?, ?, ?, ?, ?)",
    );
    this.#byId = db.prepare<[string, string], RawMonitor>(`${MONITOR_SELECT} WHERE m.session_id = ? AND m.id = ?`);
    this.#byUid = db.prepare<[number], RawMonitor>(`${MONITOR_SELECT} WHERE m.uid = ?`);
    this.#countPolled = db.prepare<[], { n: number }>(
      "SELECT count(*) AS n FROM triggers WHERE mode = 'poll' AND next_due_at IS NOT NULL",
    );
    this.#countDue = db.prepare<[{ now: number; host: string }], { n: number }>(
      `SELECT count(*) AS n FROM triggers t JOIN monitors m ON m.uid = t.monitor_uid WHERE t.next_due_at <= @now AND (t.lease_until IS NULL OR t.lease_until < @now) AND m.state = 'waiting' AND ${MINE}`,
    );
    this.#bySession = db.prepare<[string], RawMonitor>(`${MONITOR_SELECT} WHERE m.session_id = ? ORDER BY m.uid`);
    this.#countActive = db.prepare<[string, string], { n: number }>(
      "SELECT count(*) AS n FROM monitors m JOIN triggers t ON t.monitor_uid = m.uid WHERE m.session_id = ? AND m.kind IN (SELECT value FROM json_each(?))",
    );
    this.#setState = db.prepare("UPDATE monitors SET state = ? WHERE uid = ? AND state = ?");
    this.#due = db.prepare<[{ now: number; limit: number; host: string }], RawMonitor>(
      `${MONITOR_SELECT} WHERE t.next_due_at <= @now AND (t.lease_until IS NULL OR t.lease_until < @now) AND m.state = 'waiting' AND ${MINE} ORDER BY t.next_due_at LIMIT @limit`,
    );
    // Free, or run out: its host died during the check, or its result could not be recorded (the
    // caller skips a check it still runs).
    this.#lease = db.prepare(
      "UPDATE triggers SET lease_until = @until, lease_owner = @host WHERE monitor_uid = @uid AND (lease_until IS NULL OR lease_until < @now)",
    );
    // Two index look-ups, as `due` reads them: the earliest free due time, and the earliest end of
    // a lease (the check is due again once it has run out).
    this.#nextDue = db.prepare<[{ host: string }], { at: number | null }>(
      `SELECT min(at) AS at FROM (
         SELECT min(t.next_due_at) AS at FROM triggers t WHERE t.next_due_at IS NOT NULL AND t.lease_until IS NULL AND ${MINE}
         UNION ALL
         SELECT min(max(t.next_due_at, t.lease_until + 1)) FROM triggers t WHERE t.lease_until IS NOT NULL AND t.next_due_at IS NOT NULL AND ${MINE})`,
    );
    this.#nextDeadline = db.prepare<[], { at: number | null }>("SELECT min(deadline_at) AS at FROM triggers");
    this.#expired = db.prepare<[number], RawMonitor>(
      `${MONITOR_SELECT} WHERE t.deadline_at <= ? ORDER BY t.deadline_at`,
    );
    this.#recordObservation = db.prepare(
      "UPDATE monitors SET last_observation = ?, last_check_at = ?, last_error = NULL WHERE uid = ?",
    );
    this.#recordError = db.prepare(
      "UPDATE monitors SET last_error = ?, error_count = error_count + 1, last_check_at = ? WHERE uid = ?",
    );
    this.#updateTrigger = db.prepare(
      `UPDATE triggers SET polls = polls + 1, lease_until = NULL, next_due_at = CASE WHEN next_due_at IS NULL THEN NULL ELSE ? END,
       unrunnable_streak = ?, condition_state = ? WHERE monitor_uid = ?`,
    );
    this.#end = db.prepare(
      "UPDATE monitors SET ending_reason = ?, ending_at = ?, ending_detail = ?, state = ? WHERE uid = ? AND ending_reason IS NULL AND state = ?",
    );
    this.#deleteTrigger = db.prepare("DELETE FROM triggers WHERE monitor_uid = ?");
    this.#setNextDue = db.prepare("UPDATE triggers SET next_due_at = ? WHERE monitor_uid = ?");
    this.#clearLeases = db.prepare(
      "UPDATE triggers SET lease_until = NULL WHERE lease_until IS NOT NULL AND (lease_owner IS NULL OR lease_owner = ?)",
    );
    this.#interruptLeases = db.prepare<[string], InterruptedCheck>(
      `UPDATE triggers SET lease_until = NULL,
         condition_state = json_set(condition_state, '$."${INTERRUPTED_KEY}"',
           CAST(coalesce(json_extract(condition_state, '$."${INTERRUPTED_KEY}"'), 0) + 1 AS TEXT))
       WHERE lease_until IS NOT NULL AND (lease_owner IS NULL OR lease_owner = ?)
       RETURNING monitor_uid AS uid, CAST(json_extract(condition_state, '$."${INTERRUPTED_KEY}"') AS INTEGER) AS interrupted`,
    );
    this.#activeOfMode = db.prepare<[{ mode: string; host: string }], RawMonitor>(
      `${MONITOR_SELECT} WHERE t.mode = @mode AND ${MINE} ORDER BY m.uid`,
    );
    this.#delete = db.prepare("DELETE FROM monitors WHERE uid = ?");
    this.#endLease = db.prepare(
      `UPDATE triggers SET lease_until = NULL, condition_state = json_remove(condition_state, '$."${INTERRUPTED_KEY}"')
       WHERE monitor_uid = ?`,
    );
    this.#setWakedSeq = db.prepare("UPDATE monitors SET waked_seq = max(waked_seq, ?) WHERE uid = ?");
    this.#markCleared = db.prepare<[number, string], { id: string }>(
      `UPDATE monitors SET cleared_at = ? WHERE uid IN (SELECT value FROM json_each(?)) AND cleared_at IS NULL
       RETURNING id`,
    );
    this.#setSeal = db.prepare("UPDATE triggers SET seal = ? WHERE monitor_uid = ?");
    this.#byUids = wideRows<[string], RawMonitor>(
      db,
      `${MONITOR_SELECT} WHERE m.uid IN (SELECT value FROM json_each(?))`,
    );
  }

  insert(monitor: NewMonitor): number {
    const { lastInsertRowid } = this.#insertMonitor.run({ ...monitor, source: JSON.stringify(monitor.source) });
    const uid = Number(lastInsertRowid);
    this.#insertTrigger.run(
      uid,
      monitor.mode,
      monitor.nextDueAt,
      monitor.deadlineAt,
      monitor.hostId ?? null,
      sandboxText(monitor.sandbox),
    );
    return uid;
  }

  get(sessionId: string, id: string): MonitorRecord | undefined {
    const raw = this.#byId.get(sessionId, id);
    return raw && toMonitorRecord(raw);
  }

  /** Monitors due at `now` that no running check holds (what waits for a free slot). */
  countDue(now: number, host: string): number {
    return this.#countDue.get({ now, host })?.n ?? 0;
  }

  /** Polled monitors that have a next check (paused ones do not). */
  countPolled(): number {
    return this.#countPolled.get()?.n ?? 0;
  }

  byUid(uid: number): MonitorRecord | undefined {
    const raw = this.#byUid.get(uid);
    return raw && toMonitorRecord(raw);
  }

  /** These monitors, in the order of `uids` (missing ones left out). */
  byUids(uids: readonly number[]): MonitorRecord[] {
    const found = new Map(this.#byUids.all(JSON.stringify(uids)).map((raw) => [raw.uid, toMonitorRecord(raw)]));
    return uids.flatMap((uid) => found.get(uid) ?? []);
  }

  /** Takes these monitors out of the panel's list (Clear ended, core/clear-ended.ts decides which); their ids. */
  markCleared(uids: readonly number[], now: number): string[] {
    return this.#markCleared.all(now, JSON.stringify(uids)).map((row) => row.id);
  }

  list(sessionId: string): MonitorRecord[] {
    return this.#bySession.all(sessionId).map(toMonitorRecord);
  }

  /** Monitors of these kinds that are still armed in the session. */
  countActive(sessionId: string, kinds: readonly SourceKind[]): number {
    return this.#countActive.get(sessionId, JSON.stringify(kinds))?.n ?? 0;
  }

  setState(uid: number, from: MonitorState, to: MonitorState): boolean {
    return this.#setState.run(to, uid, from).changes > 0;
  }

  /** `host`'s due checks and the host-free ones, earliest first. */
  due(now: number, limit: number, host: string): MonitorRecord[] {
    return this.#due.all({ now, limit, host }).map(toMonitorRecord);
  }

  /** Takes the check for `host` until `until`: false while a lease holds it (its own or another host's). */
  lease(uid: number, until: number, host: string, now: number): boolean {
    return this.#lease.run({ until, host, uid, now }).changes > 0;
  }

  /**
   * The earliest time a check of `host` (or a host-free one) is due (a leased one once its lease has
   * run out), and the earliest deadline.
   */
  nextTimes(host: string): { due: number | null; deadline: number | null } {
    return { due: this.#nextDue.get({ host })?.at ?? null, deadline: this.#nextDeadline.get()?.at ?? null };
  }

  /** A check finished whose result is discarded (the monitor was paused meanwhile): it was not interrupted. */
  recordLeaseEnd(uid: number): void {
    this.#endLease.run(uid);
  }

  expired(now: number): MonitorRecord[] {
    return this.#expired.all(now).map(toMonitorRecord);
  }

  recordCheck(uid: number, check: CheckRecord): void {
    if (check.error) this.#recordError.run(check.error, check.at, uid);
    else this.#recordObservation.run(JSON.stringify(check.observation ?? null), check.at, uid);
    // A recorded check ends any run of interrupted ones.
    const { [INTERRUPTED_KEY]: _, ...conditionState } = check.conditionState;
    this.#updateTrigger.run(check.nextDueAt, check.unrunnableStreak, JSON.stringify(conditionState), uid);
  }

  /** Records the one ending; false when the monitor had already ended or changed state. */
  end(uid: number, from: MonitorState, to: MonitorState, reason: EndingReason, detail: string | null, at: number) {
    const changed = this.#end.run(reason, at, detail, to, uid, from).changes > 0;
    if (changed) this.#deleteTrigger.run(uid);
    return changed;
  }

  setNextDue(uid: number, at: number | null): void {
    this.#setNextDue.run(at, uid);
  }

  /** The seal of the host that armed it (engine/seals.ts), set in the arming transaction. */
  setSeal(uid: number, seal: string): void {
    this.#setSeal.run(seal, uid);
  }

  /** At a clean stop: the running checks were stopped, and run again at the next start. */
  clearLeases(host: string): number {
    return this.#clearLeases.run(host).changes;
  }

  /**
   * At start: a lease `host` still holds is a check its last stop left in flight (a clean stop
   * clears them first; another host's leases run out by time and are taken over). Each is released and counted; returns them with their count in a row.
   */
  interruptLeases(host: string): InterruptedCheck[] {
    return this.#interruptLeases.all(host);
  }

  /** `host`'s armed monitors of `mode`, and the host-free ones. */
  armedOfMode(mode: TriggerRecord["mode"], host: string): MonitorRecord[] {
    return this.#activeOfMode.all({ mode, host }).map(toMonitorRecord);
  }

  delete(uid: number): void {
    this.#delete.run(uid);
  }

  setWakedSeq(uid: number, seq: number): void {
    this.#setWakedSeq.run(seq, uid);
  }
}
