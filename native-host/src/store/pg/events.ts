/**
 * Each monitor's event log on PostgreSQL (team mode, #27): the SQL of store/events.ts with `$n`
 * placeholders; the same cap and prune steps. Entries mapped by the SQLite module's `toEvent`.
 * Design: docs/design.md §9 (team mode; the plan: docs/team-mode-plan.md).
 */
import type { MonitorEvent } from "../../../../shared/schemas/views.js";
import type { EventsStore } from "../engine.js";
import { EVENT_LOG_CAP, pruneUpTo, type RawEvent, toEvent } from "../events.js";
import { all, one, type Queryable, run, statement } from "./statement.js";

const BUMP = statement(
  "events_bump",
  "UPDATE monitors SET event_count = event_count + 1, last_event = $1, last_check_at = $2 WHERE uid = $3 RETURNING event_count",
);
const INSERT = statement("events_insert", "INSERT INTO events (monitor_uid, seq, at, text) VALUES ($1, $2, $3, $4)");
const PRUNE = statement("events_prune", "DELETE FROM events WHERE monitor_uid = $1 AND seq <= $2");
const LIST = statement(
  "events_list",
  "SELECT seq, at, text FROM events WHERE monitor_uid = $1 ORDER BY seq DESC LIMIT $2",
);
const SINCE = statement(
  "events_since",
  "SELECT seq, at, text FROM events WHERE monitor_uid = $1 AND seq > $2 ORDER BY seq DESC LIMIT $3",
);

/** After event `seq` of a monitor was appended (here or with a signal): store/events.ts's pruning. */
export async function pruneAfter(db: Queryable, monitorUid: number, seq: number): Promise<void> {
  const upTo = pruneUpTo(seq);
  if (upTo !== null) await run(db, PRUNE, [monitorUid, upTo]);
}

export class PgEvents implements EventsStore {
  constructor(private readonly db: Queryable) {}

  async append(monitorUid: number, text: string, at: number): Promise<number> {
    const row = await one<{ event_count: number }>(this.db, BUMP, [text, at, monitorUid]);
    if (!row) throw new Error(`Expected monitor ${monitorUid} to exist`);
    const seq = row.event_count;
    await run(this.db, INSERT, [monitorUid, seq, at, text]);
    await pruneAfter(this.db, monitorUid, seq);
    return seq;
  }

  async recent(monitorUid: number, limit = EVENT_LOG_CAP): Promise<MonitorEvent[]> {
    return (await all<RawEvent>(this.db, LIST, [monitorUid, limit])).reverse().map(toEvent);
  }

  async since(monitorUid: number, seq: number, limit: number): Promise<MonitorEvent[]> {
    return (await all<RawEvent>(this.db, SINCE, [monitorUid, seq, limit])).reverse().map(toEvent);
  }
}
