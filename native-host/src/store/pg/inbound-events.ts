/**
 * Events posted to sessions, on PostgreSQL (team mode, #27): the SQL of store/inbound-events.ts
 * with `$n` placeholders (lastInsertRowid → RETURNING id); rows mapped by `toInboundEvent`.
 * Design: docs/design.md §9 (team mode; the plan: docs/team-mode-plan.md).
 */
import type { InboundEventsStore } from "../engine.js";
import {
  INBOUND_EVENT_RETENTION_MS,
  type InboundEvent,
  type RawInboundEvent,
  toInboundEvent,
} from "../inbound-events.js";
import { all, one, type Queryable, run, statement } from "./statement.js";

const INSERT = statement(
  "inbound_events_insert",
  "INSERT INTO inbound_events (session_id, type, payload, received_at) VALUES ($1, $2, $3, $4) RETURNING id",
);
const SET_MATCHED = statement("inbound_events_set_matched", "UPDATE inbound_events SET matched = $1 WHERE id = $2");
const PRUNE = statement("inbound_events_prune", "DELETE FROM inbound_events WHERE received_at < $1");
const SINCE = statement(
  "inbound_events_since",
  "SELECT id, payload, received_at FROM inbound_events WHERE session_id = $1 AND type = $2 AND received_at >= $3 ORDER BY id",
);

export class PgInboundEvents implements InboundEventsStore {
  constructor(private readonly db: Queryable) {}

  async insert(sessionId: string, type: string, payload: unknown, at: number): Promise<number> {
    const row = await one<{ id: number }>(this.db, INSERT, [sessionId, type, JSON.stringify(payload ?? null), at]);
    if (!row) throw new Error(`Expected INSERT INTO inbound_events to return an id for session ${sessionId}, got none`);
    return row.id;
  }

  async setMatched(id: number, monitorIds: string[]): Promise<void> {
    await run(this.db, SET_MATCHED, [JSON.stringify(monitorIds), id]);
  }

  async since(sessionId: string, type: string, from: number): Promise<InboundEvent[]> {
    const rows = await all<RawInboundEvent>(this.db, SINCE, [sessionId, type, from]);
    return rows.map((row) => toInboundEvent(row, sessionId, type));
  }

  async prune(now: number): Promise<number> {
    return run(this.db, PRUNE, [now - INBOUND_EVENT_RETENTION_MS]);
  }
}
