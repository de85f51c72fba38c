/**
 * The PostgreSQL engine (team mode, #27; docs/team-mode-plan.md §2.3): the tables ported so far,
 * on the pool outside a transaction and on the transaction's client inside (`transaction.ts`:
 * BEGIN … COMMIT, run again after a deadlock or serialization failure).
 * Ported: sessions, monitors+triggers, waitpoints+signals+tombstones, events, checks, wakes. The
 * rest of `Tables` (inbound_events, devices, vault audit) follows; until then this engine is an
 * `EngineOf<PgTables>`, not yet an `Engine`. Not wired into the daemon yet.
 */
import type pg from "pg";
import type { EngineOf, Tables } from "../engine.js";
import { PgChecks } from "./checks.js";
import { PgEvents } from "./events.js";
import { PgMonitors } from "./monitors.js";
import { PgSessions } from "./sessions.js";
import type { Queryable } from "./statement.js";
import { type TransactionOptions, transaction } from "./transaction.js";
import { PgWaitpoints } from "./waitpoints.js";
import { PgWakes } from "./wakes.js";

export const PG_TABLES = ["sessions", "monitors", "waitpoints", "events", "checks", "wakes"] as const;
export type PgTables = Pick<Tables, (typeof PG_TABLES)[number]>;

export function pgTables(db: Queryable): PgTables {
  return {
    sessions: new PgSessions(db),
    monitors: new PgMonitors(db),
    waitpoints: new PgWaitpoints(db),
    events: new PgEvents(db),
    checks: new PgChecks(db),
    wakes: new PgWakes(db),
  };
}

export class PgEngine implements EngineOf<PgTables> {
  readonly engine = "postgres" as const;
  readonly tables: PgTables;

  constructor(
    readonly pool: pg.Pool,
    private readonly options: TransactionOptions = {},
  ) {
    this.tables = pgTables(pool);
  }

  tx<R>(body: (t: PgTables) => Promise<R>): Promise<R> {
    return transaction(this.pool, (client) => body(pgTables(client)), this.options);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
