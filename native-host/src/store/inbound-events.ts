/**
 * Events posted to sessions: persisted first, matched second, pruned after a day.
 * Design: docs/design.md §9.
 */
import type { Db } from "./db.js";

export const INBOUND_EVENT_RETENTION_MS = 24 * 3_600_000;

export interface InboundEvent {
  id: number;
  sessionId: string;
  type: string;
  payload: unknown;
  receivedAt: number;
}

export interface RawInboundEvent {
  id: number;
  payload: string;
  received_at: number;
}

export const toInboundEvent = (row: RawInboundEvent, sessionId: string, type: string): InboundEvent => ({
  id: row.id,
  sessionId,
  type,
  payload: JSON.parse(row.payload) as unknown,
  receivedAt: row.received_at,
});

export class InboundEventsTable {
  readonly #insert;
  readonly #setMatched;
  readonly #prune;
  readonly #since;

  constructor(db: Db) {
    this.#insert = db.prepare(
      "INSERT INTO inbound_events (session_id, type, payload, received_at) VALUES (?, ?, ?, ?)",
    );
    this.#setMatched = db.prepare("UPDATE inbound_events SET matched = ? WHERE id = ?");
    this.#prune = db.prepare("DELETE FROM inbound_events WHERE received_at < ?");
    this.#since = db.prepare<[string, string, number], RawInboundEvent>(
      "SELECT id, payload, received_at FROM inbound_events WHERE session_id = ? AND type = ? AND received_at >= ? ORDER BY id",
    );
  }

  insert(sessionId: string, type: string, payload: unknown, at: number): number {
    return Number(this.#insert.run(sessionId, type, JSON.stringify(payload ?? null), at).lastInsertRowid);
  }

  setMatched(id: number, monitorIds: string[]): void {
    this.#setMatched.run(JSON.stringify(monitorIds), id);
  }

  /** Events of this type the session accepted since `from`, oldest first. */
  since(sessionId: string, type: string, from: number): InboundEvent[] {
    return this.#since.all(sessionId, type, from).map((row) => toInboundEvent(row, sessionId, type));
  }

  prune(now: number): number {
    return this.#prune.run(now - INBOUND_EVENT_RETENTION_MS).changes;
  }
}
