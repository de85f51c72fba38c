/**
 * Waitpoints, their signals and the tombstones of removed ones on PostgreSQL (team mode, #27): the
 * SQL of store/waitpoints.ts with `$n` placeholders (json_each → `= ANY($n)`, INSERT OR REPLACE →
 * ON CONFLICT DO UPDATE). Rows mapped by the SQLite module's `toWaitpoint`/`toTarget`/`toSignal`.
 *
 * `target` is the signal path's first read, "the monitor's standing": here it locks the monitor row
 * (FOR UPDATE OF m), so a signal's read-then-write transaction is serialized with every other one
 * on the same waitpoint (plan §2.3), as SQLite's immediate transaction serializes it.
 * Design: docs/design.md §9 (team mode; the plan: docs/team-mode-plan.md).
 */
import type { WaitpointsStore } from "../engine.js";
import { EVENT_LOG_CAP, EVENT_PRUNE_STEP } from "../events.js";
import {
  keyOf,
  type NewSignal,
  PROGRESS_KEPT,
  PROGRESS_TRIM_STEP,
  type RawSignal,
  type RawTarget,
  type RawWaitpoint,
  type SignalRow,
  type SignalTarget,
  type SignalTargets,
  toSignal,
  toTarget,
  toWaitpoint,
  type WaitpointRow,
} from "../waitpoints.js";
import { pruneAfter } from "./events.js";
import { all, one, type Queryable, run, statement } from "./statement.js";

const TOMBSTONE = statement(
  "waitpoints_tombstone",
  `INSERT INTO waitpoint_tombstones (id, secret_hash, removed_at) VALUES ($1, $2, $3)
   ON CONFLICT (id) DO UPDATE SET secret_hash = excluded.secret_hash, removed_at = excluded.removed_at`,
);
const TOMBSTONE_OF = statement("waitpoints_tombstone_of", "SELECT secret_hash FROM waitpoint_tombstones WHERE id = $1");
const PRUNE_TOMBSTONES = statement(
  "waitpoints_prune_tombstones",
  "DELETE FROM waitpoint_tombstones WHERE removed_at < $1",
);
const INSERT = statement(
  "waitpoints_insert",
  `INSERT INTO waitpoints (monitor_uid, id, secret_hash, members, quorum, fail_fast, max_signals, heartbeat_timeout_ms, device, device_id)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
);
const BY_ID = statement("waitpoints_by_id", "SELECT * FROM waitpoints WHERE id = $1");
const BY_UID = statement("waitpoints_by_uid", "SELECT * FROM waitpoints WHERE monitor_uid = $1");
const BY_UIDS = statement("waitpoints_by_uids", "SELECT * FROM waitpoints WHERE monitor_uid = ANY($1::bigint[])");
const SIGNALS_OF = statement(
  "waitpoints_signals_of",
  "SELECT * FROM signals WHERE monitor_uid = ANY($1::bigint[]) ORDER BY id",
);
const TARGET = statement(
  "waitpoints_target",
  `SELECT w.*, m.session_id, m.state, m.ending_reason
   FROM waitpoints w JOIN monitors m ON m.uid = w.monitor_uid WHERE w.id = $1 FOR UPDATE OF m`,
);
// A batch of signals' waitpoints at once (group commit), locked in one order (by uid) so two
// daemons' batches cannot deadlock on them.
const TARGETS = statement(
  "waitpoints_targets",
  `SELECT w.*, m.session_id, m.state, m.ending_reason
   FROM waitpoints w JOIN monitors m ON m.uid = w.monitor_uid WHERE w.id = ANY($1::text[])
   ORDER BY m.uid FOR UPDATE OF m`,
);
// A batch's waitpoints read without locks (its write, RECORD_SIGNALS, locks their monitors), each
// with the keys asked for it that a stored signal holds already: one probe of the (monitor_uid, key)
// index per key asked (LATERAL … LIMIT 1 is not flattened into a join, which a planner with stale
// statistics would run as a scan of the whole table). $1 and $2 pair each signal's id and key.
const SIGNAL_TARGETS = statement(
  "waitpoints_signal_targets",
  `WITH wanted AS (SELECT id, key FROM unnest($1::text[], $2::text[]) AS u(id, key))
   SELECT w.*, m.session_id, m.state, m.ending_reason,
     ARRAY(SELECT k.key FROM wanted k CROSS JOIN LATERAL (
       SELECT 1 FROM signals s WHERE s.monitor_uid = w.monitor_uid AND s.key = k.key LIMIT 1) held
       WHERE k.id = w.id) AS held_keys
   FROM waitpoints w JOIN monitors m ON m.uid = w.monitor_uid WHERE w.id = ANY($1::text[])`,
);
const INSERT_SIGNAL = statement(
  "waitpoints_insert_signal",
  `INSERT INTO signals (monitor_uid, key, status, member, message, data, via, received_at, event_seq)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
);
// An accepted signal in one round trip: the monitor's event count bumped, the event written, the
// signal row naming it (store/events.ts's append and insertSignal, chained), and when its seq is a
// multiple of $11 (store/waitpoints.ts's trimsProgress) the progress rows past the newest
// PROGRESS_KEPT deleted and counted ($10 = KEPT, less one for a progress signal: every part sees the
// rows as they were before this statement, so without the new one).
const RECORD_SIGNAL = statement(
  "waitpoints_record_signal",
  `WITH bump AS (
     UPDATE monitors SET event_count = event_count + 1, last_event = $9, last_check_at = $8 WHERE uid = $1
     RETURNING event_count
   ), event AS (
     INSERT INTO events (monitor_uid, seq, at, text) SELECT $1, event_count, $8, $9 FROM bump RETURNING seq
   ), gone AS (
     DELETE FROM signals WHERE (SELECT event_count FROM bump) % $11::bigint = 0
       AND monitor_uid = $1 AND status = 'progress' AND id <= (
       SELECT id FROM signals WHERE monitor_uid = $1 AND status = 'progress' ORDER BY id DESC LIMIT 1 OFFSET $10)
     RETURNING 1
   ), dropped AS (
     UPDATE waitpoints SET progress_dropped = progress_dropped + (SELECT count(*) FROM gone)
     WHERE monitor_uid = $1 AND EXISTS (SELECT 1 FROM gone)
   )
   INSERT INTO signals (monitor_uid, key, status, member, message, data, via, received_at, event_seq)
   SELECT $1, $2, $3, $4, $5, $6, $7, $8, seq FROM event RETURNING event_seq`,
);
// A batch's accepted signals in one round trip (group commit, #41): RECORD_SIGNAL for many rows.
// A row whose key a stored signal holds already is left out (`input`: one probe of the
// (monitor_uid, key) index per row, a LATERAL … LIMIT 1 that is never flattened into a join, which a
// planner with stale statistics would run as a scan of all signals) and its index returned in
// `held`: the batch may not have read its keys (core/signal-batch.ts TargetCache), and one stored
// meanwhile by another batch is a duplicate, not a failure. A key stored by a batch still in flight
// is not seen here; its unique index then fails this statement, which writes nothing.
// Each monitor's event count goes up by its number of signals (`base` + n numbers them in order),
// its events are written, its event log pruned when a seq in (base, top] is a multiple of the
// prune step past the cap ($10 cap, $11 step: store/events.ts's pruneUpTo), and when a seq in
// (base, top] is a multiple of $13 (trimsProgress) its progress rows past the newest $12 as of the
// last such seq `t` dropped and counted — what recordSignal one by one leaves (each monitor's progress
// rows read then, newest first, through its index: a LATERAL with OFFSET is never flattened into a
// join, which a planner with stale statistics would run as a scan of all signals per monitor).
// Every part sees the rows as they were before the statement, so the offset is $12 minus the
// batch's own progress rows numbered up to `t`; a batch of more than $12 progress signals to one
// waitpoint keeps its surplus until the next trim, and so do the rows of a batch this statement
// waited for (another commit in flight: its rows are not in this statement's snapshot). The
// monitors are found by their key ($1), not by a join a stale plan would make a scan, and locked
// in one order (by uid) so that two batches cannot deadlock. All or nothing: when a monitor of the
// batch is no longer armed (ended since the batch read it unlocked, or since this daemon last read
// it), nothing is written (`whole` is false; the statement may be its own transaction,
// core/waitpoints.ts) and `recordSignals` throws.
const RECORD_SIGNALS = statement(
  "waitpoints_record_signals",
  `WITH given AS (
     SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[])
       WITH ORDINALITY AS i(uid, key, status, member, message, data, via, received_at, text, ord)
   ), input AS (
     SELECT g.* FROM given g
       LEFT JOIN LATERAL (SELECT 1 AS one FROM signals s WHERE s.monitor_uid = g.uid AND s.key = g.key LIMIT 1) held ON true
     WHERE held.one IS NULL
   ), numbered AS (
     SELECT i.*, row_number() OVER (PARTITION BY i.uid ORDER BY i.ord) AS n FROM input i
   ), per_monitor AS (
     SELECT uid, count(*) AS k,
            (array_agg(text ORDER BY ord DESC))[1] AS last_text, (array_agg(received_at ORDER BY ord DESC))[1] AS last_at
     FROM input GROUP BY uid
   ), locked AS (
     SELECT m.uid FROM monitors m WHERE m.uid = ANY($1::bigint[]) AND m.state IN ('waiting', 'paused')
     ORDER BY m.uid FOR UPDATE
   ), whole AS (
     SELECT count(*) = (SELECT count(DISTINCT uid) FROM given) AS ok FROM locked
   ), bump AS (
     UPDATE monitors m SET event_count = m.event_count + p.k, last_event = p.last_text, last_check_at = p.last_at
     FROM per_monitor p JOIN locked l ON l.uid = p.uid CROSS JOIN whole
     WHERE whole.ok AND m.uid = p.uid AND m.uid = ANY($1::bigint[])
     RETURNING m.uid, m.event_count - p.k AS base, m.event_count AS top
   ), event AS (
     INSERT INTO events (monitor_uid, seq, at, text)
     SELECT n.uid, b.base + n.n, n.received_at, n.text FROM numbered n JOIN bump b ON b.uid = n.uid
   ), events_gone AS (
     DELETE FROM events e USING bump b
     WHERE e.monitor_uid = b.uid AND (b.top / $11::bigint) * $11::bigint > b.base
       AND (b.top / $11::bigint) * $11::bigint > $10::bigint AND e.seq <= (b.top / $11::bigint) * $11::bigint - $10::bigint
   ), progress_trim AS (
     SELECT b.uid, (SELECT count(*) FROM numbered n WHERE n.uid = b.uid AND n.status = 'progress'
                      AND b.base + n.n <= (b.top / $13::bigint) * $13::bigint) AS progress
     FROM bump b WHERE (b.top / $13::bigint) * $13::bigint > b.base
   ), progress_gone AS (
     DELETE FROM signals s WHERE s.id IN (
       SELECT o.id FROM progress_trim t CROSS JOIN LATERAL (
         SELECT o.id FROM signals o WHERE o.monitor_uid = t.uid AND o.status = 'progress'
         ORDER BY o.id DESC OFFSET greatest($12::bigint - t.progress, 0)) o)
     RETURNING s.monitor_uid
   ), dropped AS (
     UPDATE waitpoints w SET progress_dropped = w.progress_dropped + g.n
     FROM (SELECT monitor_uid, count(*) AS n FROM progress_gone GROUP BY monitor_uid) g WHERE w.monitor_uid = g.monitor_uid
   ), inserted AS (
     INSERT INTO signals (monitor_uid, key, status, member, message, data, via, received_at, event_seq)
     SELECT n.uid, n.key, n.status, n.member, n.message, n.data, n.via, n.received_at, b.base + n.n
     FROM numbered n JOIN bump b ON b.uid = n.uid ORDER BY n.ord
   )
   SELECT (SELECT ok FROM whole) AS ok, ARRAY(SELECT ord - 1 FROM given EXCEPT SELECT ord - 1 FROM input ORDER BY 1)::int[] AS held`,
);
const KEY_EXISTS = statement(
  "waitpoints_key_exists",
  "SELECT 1 AS one FROM signals WHERE monitor_uid = $1 AND key = $2",
);
const SIGNALS = statement("waitpoints_signals", "SELECT * FROM signals WHERE monitor_uid = $1 ORDER BY id");
const SIGNALS_AFTER = statement(
  "waitpoints_signals_after",
  "SELECT * FROM signals WHERE monitor_uid = $1 AND event_seq > $2 ORDER BY id",
);
const TERMINAL_AFTER = statement(
  "waitpoints_terminal_after",
  "SELECT * FROM signals WHERE monitor_uid = $1 AND event_seq > $2 AND status <> 'progress' ORDER BY id",
);
const WAKES_SINCE = statement(
  "waitpoints_wakes_since",
  "SELECT created_at FROM wakes WHERE monitor_uid = $1 AND created_at > $2 ORDER BY created_at",
);
const WAKE_COUNT = statement("waitpoints_wake_count", "SELECT count(*) AS n FROM wakes WHERE monitor_uid = $1");
const LAST_SIGNAL_AT = statement(
  "waitpoints_last_signal_at",
  "SELECT max(received_at) AS at FROM signals WHERE monitor_uid = $1",
);
const SET_STALL = statement(
  "waitpoints_set_stall",
  "UPDATE waitpoints SET stall_notified_for = $1 WHERE monitor_uid = $2",
);
const PURGEABLE = statement(
  "waitpoints_purgeable",
  `SELECT m.uid FROM monitors m JOIN waitpoints w ON w.monitor_uid = m.uid
   WHERE m.ending_at IS NOT NULL AND m.ending_at <= $1
     AND NOT EXISTS (SELECT 1 FROM wakes k WHERE k.monitor_uid = m.uid AND k.state IN ('ready','delivering','needs_review'))`,
);

/** A signal's columns in the order of INSERT_SIGNAL and RECORD_SIGNAL ($1–$8). */
const signalColumns = (signal: NewSignal) => [
  signal.monitorUid,
  signal.key,
  signal.status,
  signal.member,
  signal.message,
  signal.data,
  signal.via,
  signal.receivedAt,
];

export class PgWaitpoints implements WaitpointsStore {
  constructor(private readonly db: Queryable) {}

  async insert(row: Omit<WaitpointRow, "stallNotifiedFor" | "progressDropped">): Promise<void> {
    await run(this.db, INSERT, [
      row.monitorUid,
      row.id,
      row.secretHash,
      row.members === null ? null : JSON.stringify(row.members),
      row.quorum,
      row.failFast ? 1 : 0,
      row.maxSignals,
      row.heartbeatTimeoutMs,
      row.device,
      row.deviceId,
    ]);
  }

  async byId(id: string): Promise<WaitpointRow | undefined> {
    const raw = await one<RawWaitpoint>(this.db, BY_ID, [id]);
    return raw && toWaitpoint(raw);
  }

  async byUid(uid: number): Promise<WaitpointRow | undefined> {
    const raw = await one<RawWaitpoint>(this.db, BY_UID, [uid]);
    return raw && toWaitpoint(raw);
  }

  async target(id: string): Promise<SignalTarget | undefined> {
    const raw = await one<RawTarget>(this.db, TARGET, [id]);
    return raw && toTarget(raw);
  }

  async targets(ids: readonly string[]): Promise<Map<string, SignalTarget>> {
    const rows = await all<RawTarget>(this.db, TARGETS, [[...new Set(ids)]]);
    return new Map(rows.map((raw) => [raw.id, toTarget(raw)]));
  }

  async signalTargets(wanted: ReadonlyArray<{ id: string; key: string | undefined }>): Promise<SignalTargets> {
    const rows = await all<RawTarget & { held_keys: string[] }>(this.db, SIGNAL_TARGETS, [
      wanted.map((w) => w.id),
      wanted.map((w) => w.key ?? null),
    ]);
    const held = new Set<string>();
    for (const raw of rows) for (const key of raw.held_keys) held.add(keyOf(raw.monitor_uid, key));
    return { targets: new Map(rows.map((raw) => [raw.id, toTarget(raw)])), held };
  }

  async byUids(uids: readonly number[]): Promise<Map<number, WaitpointRow>> {
    const rows = await all<RawWaitpoint>(this.db, BY_UIDS, [uids]);
    return new Map(rows.map((raw) => [raw.monitor_uid, toWaitpoint(raw)]));
  }

  async signalsOf(uids: readonly number[]): Promise<Map<number, SignalRow[]>> {
    const out = new Map<number, SignalRow[]>();
    for (const raw of await all<RawSignal & { monitor_uid: number }>(this.db, SIGNALS_OF, [uids])) {
      const list = out.get(raw.monitor_uid) ?? [];
      list.push(toSignal(raw));
      out.set(raw.monitor_uid, list);
    }
    return out;
  }

  async hasKey(uid: number, key: string): Promise<boolean> {
    return (await one(this.db, KEY_EXISTS, [uid, key])) !== undefined;
  }

  async recordSignal(signal: NewSignal, text: string): Promise<number> {
    const row = await one<{ event_seq: number }>(this.db, RECORD_SIGNAL, [
      ...signalColumns(signal),
      text,
      signal.status === "progress" ? PROGRESS_KEPT - 1 : PROGRESS_KEPT,
      PROGRESS_TRIM_STEP,
    ]);
    if (!row) throw new Error(`Expected monitor ${signal.monitorUid} to exist`);
    const seq = row.event_seq;
    await pruneAfter(this.db, signal.monitorUid, seq);
    return seq;
  }

  async recordSignals(signals: ReadonlyArray<{ signal: NewSignal; text: string }>): Promise<number[]> {
    if (signals.length === 0) return [];
    const columns: unknown[][] = Array.from({ length: 9 }, () => []);
    for (const { signal, text } of signals) {
      [...signalColumns(signal), text].forEach((value, i) => {
        columns[i]?.push(value);
      });
    }
    const row = await one<{ ok: boolean; held: number[] }>(this.db, RECORD_SIGNALS, [
      ...columns,
      EVENT_LOG_CAP,
      EVENT_PRUNE_STEP,
      PROGRESS_KEPT,
      PROGRESS_TRIM_STEP,
    ]);
    // The batch read its waitpoints unlocked (or not at all): one that ended meanwhile fails the
    // batch (nothing written), which is then committed in a transaction that reads them locked
    // (core/waitpoints.ts).
    if (row?.ok !== true) {
      throw new Error("Expected every waitpoint of the batch still armed, got one that ended meanwhile");
    }
    // Nothing is checked past here: the statement has committed, and a throw would have the batch
    // stored again (core/waitpoints.ts).
    return row.held;
  }

  async insertSignal(signal: NewSignal & { eventSeq: number }): Promise<void> {
    await run(this.db, INSERT_SIGNAL, [...signalColumns(signal), signal.eventSeq]);
  }

  async signals(uid: number): Promise<SignalRow[]> {
    return (await all<RawSignal>(this.db, SIGNALS, [uid])).map(toSignal);
  }

  async signalsAfter(uid: number, eventSeq: number): Promise<SignalRow[]> {
    return (await all<RawSignal>(this.db, SIGNALS_AFTER, [uid, eventSeq])).map(toSignal);
  }

  async terminalSignalsAfter(uid: number, eventSeq: number): Promise<SignalRow[]> {
    return (await all<RawSignal>(this.db, TERMINAL_AFTER, [uid, eventSeq])).map(toSignal);
  }

  async wakeTimesSince(uid: number, since: number): Promise<number[]> {
    return (await all<{ created_at: number }>(this.db, WAKES_SINCE, [uid, since])).map((row) => row.created_at);
  }

  async wakeCount(uid: number): Promise<number> {
    return (await one<{ n: number }>(this.db, WAKE_COUNT, [uid]))?.n ?? 0;
  }

  async lastSignalAt(uid: number): Promise<number | null> {
    return (await one<{ at: number | null }>(this.db, LAST_SIGNAL_AT, [uid]))?.at ?? null;
  }

  async setStallNotified(uid: number, lastSignalAt: number): Promise<void> {
    await run(this.db, SET_STALL, [lastSignalAt, uid]);
  }

  async tombstone(id: string, secretHash: string, at: number): Promise<void> {
    await run(this.db, TOMBSTONE, [id, secretHash, at]);
  }

  async tombstoneOf(id: string): Promise<string | undefined> {
    return (await one<{ secret_hash: string }>(this.db, TOMBSTONE_OF, [id]))?.secret_hash;
  }

  async pruneTombstones(before: number): Promise<void> {
    await run(this.db, PRUNE_TOMBSTONES, [before]);
  }

  async purgeable(before: number): Promise<number[]> {
    return (await all<{ uid: number }>(this.db, PURGEABLE, [before])).map((row) => row.uid);
  }
}
