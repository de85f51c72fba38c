/**
 * Waitpoints (secret hash, members, quorum) and the signals they received.
 * Design: docs/design.md §9.
 */
import type { EndingReason, MonitorState } from "../../../shared/schemas/views.js";
import type { Db } from "./db.js";
import type { EventsTable } from "./events.js";
import { wideRows } from "./wide-rows.js";

export interface WaitpointRow {
  monitorUid: number;
  id: string;
  secretHash: string;
  members: string[] | null;
  quorum: number;
  failFast: boolean;
  maxSignals: number;
  /** No signal of any kind for this long wakes the owner with "stalled". */
  heartbeatTimeoutMs: number | null;
  /** The last-signal time a stall wake was already sent for. */
  stallNotifiedFor: number | null;
  /** The device whose spool files may signal it (null: local); HTTP and the local spool always may. */
  device: string | null;
  /** That device's id when the waitpoint was armed: only files of that very device count. */
  deviceId: string | null;
  /** Progress signals no longer kept (the last `PROGRESS_KEPT` are, and those since the last trim). */
  progressDropped: number;
}

/**
 * How many progress signals a waitpoint keeps (issue #37 finding 5): older ones are deleted and
 * counted in `progress_dropped`. ok/fail signals are never deleted.
 */
export const PROGRESS_KEPT = 100;
/**
 * Older progress is let go at every this-many-th event of the waitpoint (its seq a multiple), not at
 * each signal: reading the kept rows to find the oldest is the trim's cost, so it is paid once per
 * step (#41: on PostgreSQL it was half of a signal's work). Between trims up to PROGRESS_KEPT + STEP
 * are stored (more when an event that is not a signal — a dismissed wake — takes the multiple, and
 * the next trim is a step later); where a trim ran, the newest PROGRESS_KEPT — on PostgreSQL of the
 * rows its statement saw when it began: a batch of another commit in flight that it waited for
 * keeps its rows until the next trim. Every report is kept or counted in `progress_dropped`.
 */
export const PROGRESS_TRIM_STEP = 32;

/** Whether the event numbered `seq` trims the waitpoint's progress (both engines; batches alike). */
export const trimsProgress = (seq: number): boolean => seq % PROGRESS_TRIM_STEP === 0;

export interface SignalRow {
  id: number;
  status: "ok" | "fail" | "progress";
  member: string | null;
  message: string | null;
  data: string | null;
  via: SignalVia;
  receivedAt: number;
  eventSeq: number;
}

/** A signal to record: its row but for the id and the event it becomes. */
export type NewSignal = Omit<SignalRow, "id" | "eventSeq"> & { monitorUid: number; key: string | null };

export type SignalVia = "http" | "spool" | "device";

/** A waitpoint with its monitor's standing: what a signal needs, read in one statement. */
export interface SignalTarget extends WaitpointRow {
  sessionId: string;
  state: MonitorState;
  endingReason: EndingReason | null;
}

export interface RawWaitpoint {
  monitor_uid: number;
  id: string;
  secret_hash: string;
  members: string | null;
  quorum: number;
  fail_fast: number;
  max_signals: number;
  heartbeat_timeout_ms: number | null;
  stall_notified_for: number | null;
  device: string | null;
  device_id: string | null;
  progress_dropped: number;
}

export interface RawTarget extends RawWaitpoint {
  session_id: string;
  state: string;
  ending_reason: string | null;
}

export interface RawSignal {
  id: number;
  status: SignalRow["status"];
  member: string | null;
  message: string | null;
  data: string | null;
  via: SignalRow["via"];
  received_at: number;
  event_seq: number;
}

export const toWaitpoint = (raw: RawWaitpoint): WaitpointRow => ({
  monitorUid: raw.monitor_uid,
  id: raw.id,
  secretHash: raw.secret_hash,
  members: raw.members === null ? null : (JSON.parse(raw.members) as string[]),
  quorum: raw.quorum,
  failFast: raw.fail_fast === 1,
  maxSignals: raw.max_signals,
  heartbeatTimeoutMs: raw.heartbeat_timeout_ms,
  stallNotifiedFor: raw.stall_notified_for,
  device: raw.device,
  deviceId: raw.device_id,
  progressDropped: Number(raw.progress_dropped),
});

// One literal with every field (no spread of toWaitpoint's result): this runs once per signal, and
// a spread copy showed as 2.5 % of the daemon's CPU under signal load.
export const toTarget = (raw: RawTarget): SignalTarget => ({
  monitorUid: raw.monitor_uid,
  id: raw.id,
  secretHash: raw.secret_hash,
  members: raw.members === null ? null : (JSON.parse(raw.members) as string[]),
  quorum: raw.quorum,
  failFast: raw.fail_fast === 1,
  maxSignals: raw.max_signals,
  heartbeatTimeoutMs: raw.heartbeat_timeout_ms,
  stallNotifiedFor: raw.stall_notified_for,
  device: raw.device,
  deviceId: raw.device_id,
  progressDropped: Number(raw.progress_dropped),
  sessionId: raw.session_id,
  state: raw.state as MonitorState,
  endingReason: raw.ending_reason as EndingReason | null,
});

export const toSignal = (raw: RawSignal): SignalRow => ({
  id: raw.id,
  status: raw.status,
  member: raw.member,
  message: raw.message,
  data: raw.data,
  via: raw.via,
  receivedAt: raw.received_at,
  eventSeq: raw.event_seq,
});

/** A (monitor uid, signal key) pair as one string (`SignalTargets.held`'s members). */
export const keyOf = (uid: number, key: string): string => `${uid}:${key}`;

/** What a batch of signals reads before it writes (`signalTargets`). */
export interface SignalTargets {
  /** The waitpoints named, by id (an unknown id is absent). */
  targets: Map<string, SignalTarget>;
  /** Of the keys asked, those a stored signal to the same waitpoint holds, as `keyOf(uid, key)`. */
  held: Set<string>;
}

export class WaitpointsTable {
  readonly #insert;
  readonly #byId;
  readonly #byUid;
  readonly #target;
  readonly #insertSignal;
  readonly #keyExists;
  readonly #signals;
  readonly #signalsAfter;
  readonly #terminalAfter;
  readonly #wakesSince;
  readonly #wakeCount;
  readonly #purgeable;
  readonly #lastSignalAt;
  readonly #byUids;
  readonly #signalsOf;
  readonly #setStall;
  readonly #dropProgress;
  readonly #countDropped;

  readonly #tombstone;
  readonly #isTombstoned;
  readonly #pruneTombstones;

  constructor(
    db: Db,
    private readonly events: EventsTable,
  ) {
    this.#tombstone = db.prepare<[string, string, number]>(
      "INSERT OR REPLACE INTO waitpoint_tombstones (id, secret_hash, removed_at) VALUES (?, ?, ?)",
    );
    this.#isTombstoned = db.prepare<[string], { secret_hash: string }>(
      "SELECT secret_hash FROM waitpoint_tombstones WHERE id = ?",
    );
    this.#pruneTombstones = db.prepare<[number]>("DELETE FROM waitpoint_tombstones WHERE removed_at < ?");
    this.#insert = db.prepare(
      `INSERT INTO waitpoints (monitor_uid, id, secret_hash, members, quorum, fail_fast, max_signals, heartbeat_timeout_ms, device, device_id)
       VALUES (@monitorUid, @id, @secretHash, @members, @quorum, @failFast, @maxSignals, @heartbeatTimeoutMs, @device, @deviceId)`,
    );
    this.#byId = db.prepare<[string], RawWaitpoint>("SELECT * FROM waitpoints WHERE id = ?");
    this.#byUid = db.prepare<[number], RawWaitpoint>("SELECT * FROM waitpoints WHERE monitor_uid = ?");
    this.#byUids = wideRows<[string], RawWaitpoint>(
      db,
      "SELECT * FROM waitpoints WHERE monitor_uid IN (SELECT value FROM json_each(?))",
    );
    this.#signalsOf = db.prepare<[string], RawSignal & { monitor_uid: number }>(
      "SELECT * FROM signals WHERE monitor_uid IN (SELECT value FROM json_each(?)) ORDER BY id",
    );
    this.#target = db.prepare<[string], RawTarget>(
      `SELECT w.*, m.session_id, m.state, m.ending_reason
       FROM waitpoints w JOIN monitors m ON m.uid = w.monitor_uid WHERE w.id = ?`,
    );
    // Positional: binding nine named parameters from an object costs more than the insert's own work.
    this.#insertSignal = db.prepare<
      [number, string | null, string, string | null, string | null, string | null, string, number, number]
    >(
      `INSERT INTO signals (monitor_uid, key, status, member, message, data, via, received_at, event_seq)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#keyExists = db.prepare<[number, string], { one: number }>(
      "SELECT 1 AS one FROM signals WHERE monitor_uid = ? AND key = ?",
    );
    this.#signals = db.prepare<[number], RawSignal>("SELECT * FROM signals WHERE monitor_uid = ? ORDER BY id");
    this.#signalsAfter = db.prepare<[number, number], RawSignal>(
      "SELECT * FROM signals WHERE monitor_uid = ? AND event_seq > ? ORDER BY id",
    );
    this.#terminalAfter = db.prepare<[number, number], RawSignal>(
      "SELECT * FROM signals WHERE monitor_uid = ? AND event_seq > ? AND status != 'progress' ORDER BY id",
    );
    this.#wakesSince = db.prepare<[number, number], { created_at: number }>(
      "SELECT created_at FROM wakes WHERE monitor_uid = ? AND created_at > ? ORDER BY created_at",
    );
    this.#wakeCount = db.prepare<[number], { n: number }>("SELECT count(*) AS n FROM wakes WHERE monitor_uid = ?");
    this.#lastSignalAt = db.prepare<[number], { at: number | null }>(
      "SELECT max(received_at) AS at FROM signals WHERE monitor_uid = ?",
    );
    this.#setStall = db.prepare("UPDATE waitpoints SET stall_notified_for = ? WHERE monitor_uid = ?");
    this.#dropProgress = db.prepare<[number, number, number]>(
      `DELETE FROM signals WHERE monitor_uid = ? AND status = 'progress' AND id <= (
         SELECT id FROM signals WHERE monitor_uid = ? AND status = 'progress' ORDER BY id DESC LIMIT 1 OFFSET ?)`,
    );
    this.#countDropped = db.prepare<[number, number]>(
      "UPDATE waitpoints SET progress_dropped = progress_dropped + ? WHERE monitor_uid = ?",
    );
    this.#purgeable = db.prepare<[number], { uid: number }>(
      `SELECT m.uid FROM monitors m JOIN waitpoints w ON w.monitor_uid = m.uid
       WHERE m.ending_at IS NOT NULL AND m.ending_at <= ?
         AND NOT EXISTS (SELECT 1 FROM wakes k WHERE k.monitor_uid = m.uid AND k.state IN ('ready','delivering','needs_review'))`,
    );
  }

  insert(row: Omit<WaitpointRow, "stallNotifiedFor" | "progressDropped">): void {
    const { stallNotifiedFor: _, ...rest } = { ...row, stallNotifiedFor: null };
    this.#insert.run({
      ...rest,
      members: row.members === null ? null : JSON.stringify(row.members),
      failFast: row.failFast ? 1 : 0,
    });
  }

  byId(id: string): WaitpointRow | undefined {
    const raw = this.#byId.get(id);
    return raw && toWaitpoint(raw);
  }

  byUid(uid: number): WaitpointRow | undefined {
    const raw = this.#byUid.get(uid);
    return raw && toWaitpoint(raw);
  }

  /** The waitpoint a signal names, with its monitor's session, state and ending (one statement). */
  target(id: string): SignalTarget | undefined {
    const raw = this.#target.get(id);
    return raw && toTarget(raw);
  }

  /**
   * The waitpoints a batch of signals names (group commit, core/group-commit.ts), by id, locked
   * (PostgreSQL; here the immediate transaction serializes anyway).
   */
  targets(ids: readonly string[]): Map<string, SignalTarget> {
    const out = new Map<string, SignalTarget>();
    for (const id of new Set(ids)) {
      const target = this.target(id);
      if (target) out.set(id, target);
    }
    return out;
  }

  /**
   * A batch's reads in one (PostgreSQL: one statement, without locks): the waitpoints its signals
   * name, and which of their keys (paired with the ids) a stored signal holds already.
   */
  signalTargets(wanted: ReadonlyArray<{ id: string; key: string | undefined }>): SignalTargets {
    const targets = this.targets(wanted.map((w) => w.id));
    const held = new Set<string>();
    for (const { id, key } of wanted) {
      const uid = targets.get(id)?.monitorUid;
      if (uid !== undefined && key !== undefined && this.hasKey(uid, key)) held.add(keyOf(uid, key));
    }
    return { targets, held };
  }

  /** The waitpoints of these monitors (one statement for a page of them), by monitor uid. */
  byUids(uids: readonly number[]): Map<number, WaitpointRow> {
    return new Map(this.#byUids.all(JSON.stringify(uids)).map((raw) => [raw.monitor_uid, toWaitpoint(raw)]));
  }

  /** The signals of these monitors, oldest first, by monitor uid. */
  signalsOf(uids: readonly number[]): Map<number, SignalRow[]> {
    const out = new Map<number, SignalRow[]>();
    for (const raw of this.#signalsOf.all(JSON.stringify(uids))) {
      const list = out.get(raw.monitor_uid) ?? [];
      list.push(toSignal(raw));
      out.set(raw.monitor_uid, list);
    }
    return out;
  }

  /** A key dedupes only signals to the same waitpoint: another waitpoint's signal with it is its own. */
  hasKey(uid: number, key: string): boolean {
    return this.#keyExists.get(uid, key) !== undefined;
  }

  /**
   * An accepted signal: its event in the monitor's log (`text`, at `receivedAt`) and the signal row
   * naming that event. Returns the event's seq. (PostgreSQL writes both in one statement.)
   */
  recordSignal(signal: NewSignal, text: string): number {
    const eventSeq = this.events.append(signal.monitorUid, text, signal.receivedAt);
    this.insertSignal({ ...signal, eventSeq });
    if (trimsProgress(eventSeq)) {
      const { changes } = this.#dropProgress.run(signal.monitorUid, signal.monitorUid, PROGRESS_KEPT);
      if (changes > 0) this.#countDropped.run(changes, signal.monitorUid);
    }
    return eventSeq;
  }

  /**
   * Accepted signals of a batch, in order (group commit): each as `recordSignal`, except one whose
   * key a stored signal holds already — nothing of it is stored, and its index is returned (the
   * batch answers it as a duplicate).
   */
  recordSignals(signals: ReadonlyArray<{ signal: NewSignal; text: string }>): number[] {
    const held: number[] = [];
    signals.forEach(({ signal, text }, i) => {
      if (signal.key !== null && this.hasKey(signal.monitorUid, signal.key)) held.push(i);
      else this.recordSignal(signal, text);
    });
    return held;
  }

  insertSignal(signal: Omit<SignalRow, "id"> & { monitorUid: number; key: string | null }): void {
    this.#insertSignal.run(
      signal.monitorUid,
      signal.key,
      signal.status,
      signal.member,
      signal.message,
      signal.data,
      signal.via,
      signal.receivedAt,
      signal.eventSeq,
    );
  }

  signals(uid: number): SignalRow[] {
    return this.#signals.all(uid).map(toSignal);
  }

  /** Signals not yet carried by a wake. */
  signalsAfter(uid: number, eventSeq: number): SignalRow[] {
    return this.#signalsAfter.all(uid, eventSeq).map(toSignal);
  }

  /** ok/fail signals not yet carried by a wake (what quorum counts). */
  terminalSignalsAfter(uid: number, eventSeq: number): SignalRow[] {
    return this.#terminalAfter.all(uid, eventSeq).map(toSignal);
  }

  wakeTimesSince(uid: number, since: number): number[] {
    return this.#wakesSince.all(uid, since).map((row) => row.created_at);
  }

  wakeCount(uid: number): number {
    return this.#wakeCount.get(uid)?.n ?? 0;
  }

  lastSignalAt(uid: number): number | null {
    return this.#lastSignalAt.get(uid)?.at ?? null;
  }

  setStallNotified(uid: number, lastSignalAt: number): void {
    this.#setStall.run(lastSignalAt, uid);
  }

  /** Ended before `before`, with nothing left to deliver. */
  /** Remembers a waitpoint removed with its session (a late signal then hears 410). */
  tombstone(id: string, secretHash: string, at: number): void {
    this.#tombstone.run(id, secretHash, at);
  }

  /** The secret hash of a waitpoint removed with its session, if this id was one. */
  tombstoneOf(id: string): string | undefined {
    return this.#isTombstoned.get(id)?.secret_hash;
  }

  pruneTombstones(before: number): void {
    this.#pruneTombstones.run(before);
  }

  purgeable(before: number): number[] {
    return this.#purgeable.all(before).map((row) => row.uid);
  }
}
