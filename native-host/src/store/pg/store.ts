/**
 * The PostgreSQL engine (team mode, #27; docs/team-mode-plan.md §2.3): every table of `Tables`
 * (the nine tables and the side panel's cross-table reads), on the pool outside a transaction and
 * on the transaction's client inside (`transaction.ts`: BEGIN … COMMIT, run again after a deadlock
 * or serialization failure).
 * Not wired into the daemon yet.
 * Design: docs/design.md §9 (team mode; the plan: docs/team-mode-plan.md).
 */
import type pg from "pg";
import { type Engine, type EngineOptions, type Tables, TransactionScope, type TxOptions } from "../engine.js";
import type { VaultFile } from "../vault-file.js";
import { PgChecks } from "./checks.js";
import { PgDevices } from "./devices.js";
import { PgEvents } from "./events.js";
import { PgHosts } from "./hosts.js";
import { PgInboundEvents } from "./inbound-events.js";
import { PgMonitors } from "./monitors.js";
import { PgNotify } from "./notify.js";
import { PgPanel } from "./panel.js";
import { PgSessions } from "./sessions.js";
import type { Queryable } from "./statement.js";
import { type TransactionOptions, transaction } from "./transaction.js";
import { PgVault } from "./vault.js";
import { PgWaitpoints } from "./waitpoints.js";
import { PgWakes } from "./wakes.js";

/** Every table on `db`; the vault's values come from the daemon's one `VaultFile`. */
export function pgTables(db: Queryable, vault: VaultFile): Tables {
  return {
    sessions: new PgSessions(db),
    monitors: new PgMonitors(db),
    events: new PgEvents(db),
    wakes: new PgWakes(db),
    waitpoints: new PgWaitpoints(db),
    inboundEvents: new PgInboundEvents(db),
    checks: new PgChecks(db),
    devices: new PgDevices(db),
    vault: new PgVault(db, vault),
    panel: new PgPanel(db),
    hosts: new PgHosts(db),
    notify: new PgNotify(db),
  };
}

export class PgEngine implements Engine {
  readonly engine = "postgres" as const;
  readonly tables: Tables;
  readonly #scope: TransactionScope | null;

  constructor(
    readonly pool: pg.Pool,
    private readonly vault: VaultFile,
    private readonly options: TransactionOptions & EngineOptions = {},
  ) {
    const scope = options.checkScope ? new TransactionScope() : null;
    this.#scope = scope;
    const outside: Queryable = scope
      ? {
          query: (config) => {
            scope.assertOutside("the store's own tables");
            return pool.query(config);
          },
        }
      : pool;
    this.tables = pgTables(outside, vault);
  }

  tx<R>(body: (t: Tables) => Promise<R>, options: TxOptions = {}): Promise<R> {
    const scope = this.#scope;
    scope?.assertOutside("store.tx");
    const run = (client: pg.PoolClient) => body(pgTables(client, this.vault));
    const checkable = options.checkable ?? false;
    return transaction(this.pool, scope ? (client) => scope.run(() => run(client)) : run, this.options, checkable);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
