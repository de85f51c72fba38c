/**
 * The store: the database and one module per table, opened together.
 * Design: docs/design.md §9.
 */
import { dirname, join } from "node:path";
import type Database from "better-sqlite3";
import { ChecksTable } from "./checks.js";
import { BUSY_TIMEOUT_MS, type Db, openDb } from "./db.js";
import { DevicesTable } from "./devices.js";
import { EventsTable } from "./events.js";
import { HostsTable } from "./hosts.js";
import { InboundEventsTable } from "./inbound-events.js";
import { MonitorsTable } from "./monitors.js";
import { NotifyTable } from "./notify.js";
import { PanelTable } from "./panel.js";
import { SessionsTable } from "./sessions.js";
import { VaultTable } from "./vault.js";
import { WaitpointsTable } from "./waitpoints.js";
import { WakesTable } from "./wakes.js";

/** What `tx` sleeps on between tries of a busy BEGIN (never notified: a plain sub-millisecond wait). */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** A busy BEGIN that may be tried again: waits 50 µs and says yes while the deadline allows. */
function busyUntil(error: unknown, deadline: number): boolean {
  if ((error as { code?: string }).code !== "SQLITE_BUSY" || performance.now() >= deadline) return false;
  Atomics.wait(PAUSE, 0, 0, 0.05);
  return true;
}

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
  /** The daemons on this database (one here: the home's lock). */
  readonly hosts: HostsTable;
  /** Needs-you notifications: channels and outbox. */
  readonly notify: NotifyTable;

  constructor(
    readonly db: Db,
    vaultFile: string | null = null,
  ) {
    this.#transaction = db.transaction((fn: () => unknown) => fn());
    this.#busyFail = db.prepare("PRAGMA busy_timeout = 0");
    this.#busyWait = db.prepare(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    this.#begin = db.prepare("BEGIN IMMEDIATE");
    this.sessions = new SessionsTable(db);
    this.monitors = new MonitorsTable(db);
    this.events = new EventsTable(db);
    this.wakes = new WakesTable(db);
    this.vault = new VaultTable(db, vaultFile);
    this.waitpoints = new WaitpointsTable(db, this.events);
    this.inboundEvents = new InboundEventsTable(db);
    this.checks = new ChecksTable(db);
    this.devices = new DevicesTable(db);
    this.panel = new PanelTable(db);
    this.hosts = new HostsTable(db);
    this.notify = new NotifyTable(db);
  }

  /** The database, and beside it (for a file database) the vault's `vault.json`. */
  static open(file: string): Store {
    return new Store(openDb(file), file === ":memory:" ? null : join(dirname(file), "vault.json"));
  }

  /** Called after every committed transaction (the WAL checkpointer listens). */
  afterCommit: (() => void) | null = null;

  // One transaction wrapper for every call: better-sqlite3 builds four functions per transaction().
  readonly #transaction: Database.Transaction<(fn: () => unknown) => unknown>;
  readonly #busyFail: Database.Statement;
  readonly #busyWait: Database.Statement;
  readonly #begin: Database.Statement;

  /**
   * Runs `fn` in one immediate transaction (a write lock taken up front). While another connection
   * holds the write lock (the checkpointer's worker starting the log over, for a millisecond or
   * two), SQLite's own busy handler would sleep 1, 2, 5, 10, 15 … ms between tries, stalling the
   * event loop for 8–33 ms each time; the BEGIN is tried here instead every 50 µs, for as long as
   * `busy_timeout` allows. Only the BEGIN is retried: once `fn` has started, an error is its own.
   */
  tx<T>(fn: () => T): T {
    let started = false;
    const body = () => {
      started = true;
      this.#busyWait.get();
      return fn();
    };
    const deadline = performance.now() + BUSY_TIMEOUT_MS;
    for (;;) {
      this.#busyFail.get();
      let result: T;
      try {
        result = this.#transaction.immediate(body) as T;
      } catch (error) {
        if (!started) {
          this.#busyWait.get();
          if (busyUntil(error, deadline)) continue;
        }
        throw error;
      }
      this.afterCommit?.();
      return result;
    }
  }

  /**
   * `BEGIN IMMEDIATE` for a transaction the caller ends (the async engine's, held across awaits),
   * retried like `tx`'s while another connection holds the write lock.
   */
  begin(): void {
    const deadline = performance.now() + BUSY_TIMEOUT_MS;
    for (;;) {
      this.#busyFail.get();
      try {
        this.#begin.run();
        this.#busyWait.get();
        return;
      } catch (error) {
        this.#busyWait.get();
        if (busyUntil(error, deadline)) continue;
        throw error;
      }
    }
  }

  close(): void {
    this.db.close();
  }
}
