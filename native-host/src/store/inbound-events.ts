/** Events posted to sessions: persisted first, matched second, pruned after a day. */
import type { Db } from "./db.js";

export const INBOUND_EVENT_RETENTION_MS = 24 * 3_600_000;

export interface InboundEvent {
  id: number;
  sessionId: string;
  type: string;
  payload: unknown;
  receivedAt: number;
}

export class InboundEventsTable {
  readonly #insert;
  readonly #setMatched;
  readonly #prune;

  constructor(db: Db) {
    this.#insert = db.prepare(
      "INSERT INTO inbound_events (session_id, type, payload, received_at) VALUES (?, ?, ?, ?)",
    );
    this.#setMatched = db.prepare("UPDATE inbound_events SET matched = ? WHERE id = ?");
    this.#prune = db.prepare("DELETE FROM inbound_events WHERE received_at < ?");
  }

  insert(sessionId: string, type: string, payload: unknown, at: number): number {
    return Number(this.#insert.run(sessionId, type, JSON.stringify(payload ?? null), at).lastInsertRowid);
  }

  setMatched(id: number, monitorIds: string[]): void {
    this.#setMatched.run(JSON.stringify(monitorIds), id);
  }

  prune(now: number): number {
    return this.#prune.run(now - INBOUND_EVENT_RETENTION_MS).changes;
  }
}
