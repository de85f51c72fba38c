/**
 * The store: the database and one module per table, opened together.
 * Design: docs/design.md §9.
 */
import { dirname, join } from "node:path";
import type Database from "better-sqlite3";
import { ChecksTable } from "./checks.js";
import { type Db, openDb } from "./db.js";
import { DevicesTable } from "./devices.js";
import { EventsTable } from "./events.js";
import { InboundEventsTable } from "./inbound-events.js";
import { MonitorsTable } from "./monitors.js";
import { PanelTable } from "./panel.js";
import { SessionsTable } from "./sessions.js";
import { VaultTable } from "./vault.js";
import { WaitpointsTable } from "./waitpoints.js";
import { WakesTable } from "./wakes.js";

export class Store {
  readonly sessions: SessionsTable;
  readonly monitors: MonitorsTable;
  readonly events: EventsTable;
  readonly wakes: WakesTable;
  readonly vault: VaultTable;
  readonly waitpoints: WaitpointsTable;
  readonly inboundEvents: InboundEventsTable;
  readonly checks: ChecksTable;
  readonly devices: DevicesTable;
  /** The side panel's filtered, paged reads (across tables). */
  readonly panel: PanelTable;

  constructor(
    readonly db: Db,
    vaultFile: string | null = null,
  ) {
    this.#transaction = db.transaction((fn: () => unknown) => fn());
    this.sessions = new SessionsTable(db);
    this.monitors = new MonitorsTable(db);
    this.events = new EventsTable(db);
    this.wakes = new WakesTable(db);
    this.vault = new VaultTable(db, vaultFile);
    this.waitpoints = new WaitpointsTable(db);
    this.inboundEvents = new InboundEventsTable(db);
    this.checks = new ChecksTable(db);
    this.devices = new DevicesTable(db);
    this.panel = new PanelTable(db);
  }

  /** The database, and beside it (for a file database) the vault's `vault.json`. */
  static open(file: string): Store {
    return new Store(openDb(file), file === ":memory:" ? null : join(dirname(file), "vault.json"));
  }

  /** Called after every committed transaction (the WAL checkpointer listens). */
  afterCommit: (() => void) | null = null;

  // One transaction wrapper for every call: better-sqlite3 builds four functions per transaction().
  readonly #transaction: Database.Transaction<(fn: () => unknown) => unknown>;

  /** Runs `fn` in one immediate transaction (a write lock taken up front). */
  tx<T>(fn: () => T): T {
    const result = this.#transaction.immediate(fn) as T;
    this.afterCommit?.();
    return result;
  }

  close(): void {
    this.db.close();
  }
}
