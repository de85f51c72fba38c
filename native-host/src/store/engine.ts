/**
 * The store as both engines offer it (team mode, #27; docs/team-mode-plan.md §2.3): every table
 * method returns a Promise, and `tx` runs an async body on the transaction's own tables. The
 * signatures are derived from today's SQLite table classes, so they are written in one place.
 *
 * `SqliteEngine` exposes today's synchronous `Store` through this interface (what the contract
 * suite runs on SQLite, and what the core will use after the async refactor, step 1 of the plan);
 * `store/pg/store.ts` is the PostgreSQL engine. Not wired into the daemon yet.
 * Design: docs/design.md §9 (team mode; the plan: docs/team-mode-plan.md).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { ChecksTable } from "./checks.js";
import type { DevicesTable } from "./devices.js";
import type { EventsTable } from "./events.js";
import type { HostsTable } from "./hosts.js";
import type { InboundEventsTable } from "./inbound-events.js";
import type { MonitorsTable } from "./monitors.js";
import type { NotifyTable } from "./notify.js";
import type { PanelTable } from "./panel.js";
import type { SessionsTable } from "./sessions.js";
import type { Store } from "./store.js";
import type { VaultTable } from "./vault.js";
import type { WaitpointsTable } from "./waitpoints.js";
import type { WakesTable } from "./wakes.js";

/** `T`'s methods, each returning a Promise of what it returns today. */
export type Async<T> = {
  [K in keyof T as T[K] extends (...args: never[]) => unknown ? K : never]: T[K] extends (...args: infer A) => infer R
    ? (...args: A) => Promise<Awaited<R>>
    : never;
};

/**
 * Row locks the core takes where it reads a record in order to write it (plan §2.3). PostgreSQL
 * runs transactions at once (READ COMMITTED), so without `SELECT … FOR UPDATE` two of them read
 * the same value and one write is lost; SQLite's immediate transaction already serializes every
 * writer, so there it is a no-op. Only meaningful inside `tx`.
 */
export interface MonitorLocks {
  /** Locks the monitor (and so its trigger and waitpoint) until the transaction ends; false when it is gone. */
  lockForUpdate(uid: number): Promise<boolean>;
}

export interface SessionLocks {
  /** Locks the session row (delivery's per-session claim: `nextTurn` and the claim as one step). */
  lockForUpdate(id: string): Promise<boolean>;
}

export type SessionsStore = Async<SessionsTable> & SessionLocks;
export type MonitorsStore = Async<MonitorsTable> & MonitorLocks;
export type EventsStore = Async<EventsTable>;
export type WakesStore = Async<WakesTable>;
export type WaitpointsStore = Async<WaitpointsTable>;
export type InboundEventsStore = Async<InboundEventsTable>;
export type ChecksStore = Async<ChecksTable>;
export type DevicesStore = Async<DevicesTable>;
/** The side panel's filtered, paged reads (across tables). */
export type PanelStore = Async<PanelTable>;
/** The daemons that share the database (team mode): one on SQLite. */
export type HostsStore = Async<HostsTable>;
/** The vault's audit and entries (the values themselves stay in the home's vault.json). */
export type VaultStore = Async<VaultTable>;
/** Needs-you notifications: the channels and the outbox (issue #40). */
export type NotifyStore = Async<NotifyTable>;

export interface Tables {
  sessions: SessionsStore;
  monitors: MonitorsStore;
  events: EventsStore;
  wakes: WakesStore;
  waitpoints: WaitpointsStore;
  inboundEvents: InboundEventsStore;
  checks: ChecksStore;
  devices: DevicesStore;
  vault: VaultStore;
  panel: PanelStore;
  hosts: HostsStore;
  notify: NotifyStore;
}

/** An engine that offers only some tables so far (the PostgreSQL one while it is being ported). */
export interface EngineOf<T> {
  readonly engine: "sqlite" | "postgres";
  /** The tables outside a transaction: each call sees the last committed state. */
  readonly tables: T;
  /**
   * One write transaction; `body` must use only the tables it is given, and have no side effect
   * but its writes (PostgreSQL runs it again after a deadlock or serialization failure).
   */
  tx<R>(body: (t: T) => Promise<R>, options?: TxOptions): Promise<R>;
  close(): Promise<void>;
}

export interface TxOptions {
  /**
   * The caller must learn whether the transaction committed even when the answer to its COMMIT is
   * lost (PostgreSQL: the connection cut meanwhile); such a loss then throws a CommitUnknownError
   * that can ask (store/unreachable.ts). Costs nothing on SQLite, where a commit is never in doubt.
   */
  checkable?: boolean;
}

export type Engine = EngineOf<Tables>;

export interface EngineOptions {
  /** Refuse store calls that break a transaction (see TransactionScope); off by default (cost). */
  checkScope?: boolean;
}

/**
 * Marks the code a transaction's body runs (its awaits included), so that both engines refuse what
 * would break it: a call on the store's own tables from inside (SQLite would wait for its own
 * transaction for ever; PostgreSQL would read and write beside it, on another connection), and a
 * transaction inside a transaction.
 * Opt-in (`checkScope`: tests, the contract suite): on Node 20 an AsyncLocalStorage in use slows
 * every promise of the process — measured +6–9 µs CPU per signal transaction on `SqliteEngine` (an
 * in-memory signal path of ~20 µs; `node /work/notes/pg-tables-engine-bench.mjs <worktree>`, see team-mode-plan.md §3) — so the
 * daemon runs without it.
 */
export class TransactionScope {
  readonly #inside = new AsyncLocalStorage<true>();

  run<R>(body: () => Promise<R>): Promise<R> {
    this.assertOutside("store.tx");
    return this.#inside.run(true, body);
  }

  assertOutside(what: string): void {
    if (this.#inside.getStore()) {
      throw new Error(
        `Expected a transaction's body to use only the tables it is given (t), got a call to ${what} inside it`,
      );
    }
  }
}

/** Wraps each method of a synchronous table so that it returns a Promise (a throw becomes a rejection). */
function asyncTable<T extends object>(table: T, gate: (() => Promise<void> | null) | null): Async<T> {
  const out: Record<string, unknown> = {};
  let proto: object | null = Object.getPrototypeOf(table);
  while (proto && proto !== Object.prototype) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const method = (table as Record<string, unknown>)[name];
      if (name === "constructor" || name in out || typeof method !== "function") continue;
      const call = method as (...a: unknown[]) => unknown;
      // Inside a transaction nothing is awaited before the call: one promise per call, no more.
      out[name] = gate
        ? async (...args: unknown[]) => {
            const wait = gate();
            if (wait) await wait;
            return call.apply(table, args);
          }
        : (...args: unknown[]) => {
            try {
              return Promise.resolve(call.apply(table, args));
            } catch (error) {
              return Promise.reject(error);
            }
          };
    }
    proto = Object.getPrototypeOf(proto);
  }
  return out as Async<T>;
}

/**
 * Today's synchronous SQLite `Store` behind the async interface. A transaction is `BEGIN
 * IMMEDIATE … COMMIT` on the one connection, held across the body's awaits; transactions queue
 * FIFO, and a read outside a transaction waits while one is open, so it never sees rows that are
 * not committed (the plan's reader connection, §2.3, is the later, concurrent form of this).
 */
export class SqliteEngine implements Engine {
  readonly engine = "sqlite" as const;
  readonly tables: Tables;
  readonly #inTx: Tables;
  /** Resolves when the transaction now open (if any) and every one queued before it have ended. */
  #tail: Promise<void> = Promise.resolve();
  #open = false;
  readonly #scope: TransactionScope | null;
  // Prepared once: db.exec would parse each of them again for every transaction.
  readonly #commit;
  readonly #rollback;

  constructor(
    readonly store: Store,
    options: EngineOptions = {},
  ) {
    this.#scope = options.checkScope ? new TransactionScope() : null;
    this.#commit = store.db.prepare("COMMIT");
    this.#rollback = store.db.prepare("ROLLBACK");
    const scope = this.#scope;
    const outside = scope
      ? () => {
          scope.assertOutside("the store's own tables");
          return this.#open ? this.#tail : null;
        }
      : () => (this.#open ? this.#tail : null);
    this.tables = this.#wrap(outside);
    this.#inTx = this.#wrap(null);
  }

  #wrap(gate: (() => Promise<void> | null) | null): Tables {
    const s = this.store;
    // No lock to take (the immediate transaction holds the one write lock); only "is it there".
    const monitorExists = s.db.prepare<[number], { one: number }>("SELECT 1 AS one FROM monitors WHERE uid = ?");
    return {
      sessions: {
        ...asyncTable(s.sessions, gate),
        lockForUpdate: async (id: string) => s.sessions.root(id) !== undefined,
      },
      monitors: {
        ...asyncTable(s.monitors, gate),
        lockForUpdate: async (uid: number) => monitorExists.get(uid) !== undefined,
      },
      events: asyncTable(s.events, gate),
      wakes: asyncTable(s.wakes, gate),
      waitpoints: asyncTable(s.waitpoints, gate),
      inboundEvents: asyncTable(s.inboundEvents, gate),
      checks: asyncTable(s.checks, gate),
      devices: asyncTable(s.devices, gate),
      vault: asyncTable(s.vault, gate),
      panel: asyncTable(s.panel, gate),
      hosts: asyncTable(s.hosts, gate),
      notify: asyncTable(s.notify, gate),
    };
  }

  tx<R>(body: (t: Tables) => Promise<R>): Promise<R> {
    this.#scope?.assertOutside("store.tx");
    const run = async (): Promise<R> => {
      const db = this.store.db;
      this.store.begin();
      this.#open = true;
      try {
        const result = await (this.#scope ? this.#scope.run(() => body(this.#inTx)) : body(this.#inTx));
        this.#commit.run();
        this.store.afterCommit?.();
        return result;
      } catch (error) {
        if (db.inTransaction) this.#rollback.run();
        throw error;
      } finally {
        this.#open = false;
      }
    };
    const result = this.#tail.then(run);
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  async close(): Promise<void> {
    await this.#tail;
    this.store.close();
  }
}
