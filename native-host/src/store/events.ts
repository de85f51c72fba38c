/**
 * Each monitor's event log: the last 200 entries (a few more kept until the next prune step).
 * Design: docs/design.md §9.
 */
import type { MonitorEvent } from "../../../shared/schemas/views.js";
import type { Db } from "./db.js";

export const EVENT_LOG_CAP = 200;
/**
 * The oldest entries go in steps of this many: between 200 and 231 are kept, the last 200 read.
 * A DELETE on every append was one more statement per signal, and a second page of the log
 * written whenever the monitor's oldest entry lies on another page than its newest.
 */
export const EVENT_PRUNE_STEP = 32;

/** After event `seq` was appended: the seq up to which to prune (each step beyond the cap), or null. */
export const pruneUpTo = (seq: number): number | null =>
  seq > EVENT_LOG_CAP && seq % EVENT_PRUNE_STEP === 0 ? seq - EVENT_LOG_CAP : null;

export interface RawEvent {
  seq: number;
  at: number;
  text: string;
}

export const toEvent = (raw: RawEvent): MonitorEvent => ({
  seq: raw.seq,
  at: new Date(raw.at).toISOString(),
  text: raw.text,
});

export class EventsTable {
  readonly #bump;
  readonly #insert;
  readonly #prune;
  readonly #list;
  readonly #since;

  constructor(db: Db) {
    this.#bump = db.prepare<[string, number, number], { event_count: number }>(
      "UPDATE monitors SET event_count = event_count + 1, last_event = ?, last_check_at = ? WHERE uid = ? RETURNING event_count",
    );
    this.#insert = db.prepare("INSERT INTO events (monitor_uid, seq, at, text) VALUES (?, ?, ?, ?)");
    this.#prune = db.prepare("DELETE FROM events WHERE monitor_uid = ? AND seq <= ?");
    this.#list = db.prepare<[number, number], RawEvent>(
      "SELECT seq, at, text FROM events WHERE monitor_uid = ? ORDER BY seq DESC LIMIT ?",
    );
    this.#since = db.prepare<[number, number, number], RawEvent>(
      "SELECT seq, at, text FROM events WHERE monitor_uid = ? AND seq > ? ORDER BY seq DESC LIMIT ?",
    );
  }

  /** Appends one (already shielded) event and updates the work record's count and last event. */
  append(monitorUid: number, text: string, at: number): number {
    const row = this.#bump.get(text, at, monitorUid);
    if (!row) throw new Error(`Expected monitor ${monitorUid} to exist`);
    const seq = row.event_count;
    this.#insert.run(monitorUid, seq, at, text);
    const upTo = pruneUpTo(seq);
    if (upTo !== null) this.#prune.run(monitorUid, upTo);
    return seq;
  }

  /** Newest `limit` events, oldest first. */
  recent(monitorUid: number, limit = EVENT_LOG_CAP): MonitorEvent[] {
    return this.#list.all(monitorUid, limit).reverse().map(toEvent);
  }

  /** Events after `seq` (newest `limit` of them, oldest first). */
  since(monitorUid: number, seq: number, limit: number): MonitorEvent[] {
    return this.#since.all(monitorUid, seq, limit).reverse().map(toEvent);
  }
}
