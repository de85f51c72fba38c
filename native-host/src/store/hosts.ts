/**
 * The hosts table (team mode, #27): one row per daemon that ever ran on this database, named by
 * `--host-name` (default the machine's hostname), with its heartbeat. A host is online while its
 * heartbeat is younger than `HOST_OFFLINE_MS` and it has not stopped. On SQLite there is one (the
 * home's lock keeps one daemon per file); on PostgreSQL every daemon of the team has its row.
 * Design: docs/design.md §9.1.
 */
import type { Db } from "./db.js";

/** The host of services wired without a registered one (the in-process harnesses of tests and benches). */
export const UNREGISTERED_HOST = "h_local";

/** How often a running daemon writes its heartbeat. */
export const HEARTBEAT_MS = 5000;
/** No heartbeat for this long: the host is offline (three heartbeats missed). */
export const HOST_OFFLINE_MS = 3 * HEARTBEAT_MS;

export interface HostRow {
  id: string;
  name: string;
  version: string;
  pid: number;
  startedAt: number;
  heartbeatAt: number;
  /** Set by a clean stop; null while it runs, or after a crash. */
  stoppedAt: number | null;
  /** Its sessions (the agents that run there). */
  sessions: number;
  /** Its armed monitors whose checks need that machine. */
  bound: number;
}

export interface RawHost {
  id: string;
  name: string;
  version: string;
  pid: number;
  started_at: number;
  heartbeat_at: number;
  stopped_at: number | null;
  sessions: number;
  bound: number;
}

export const toHostRow = (raw: RawHost): HostRow => ({
  id: raw.id,
  name: raw.name,
  version: raw.version,
  pid: raw.pid,
  startedAt: raw.started_at,
  heartbeatAt: raw.heartbeat_at,
  stoppedAt: raw.stopped_at,
  sessions: raw.sessions,
  bound: raw.bound,
});

/** A host's row without its counts (the panel and the views read these, often). */
export type HostBrief = Omit<HostRow, "sessions" | "bound">;

export const HOST_BRIEF_SQL = "SELECT * FROM hosts ORDER BY name";

/**
 * What a host's heartbeat reads of the others (#41): one row whatever the team's size — how many
 * hosts, how many online at `now` (? 1), the latest start and the latest stop. A host that joins,
 * restarts, stops or dies moves it; only then is the list read (engine/host.ts `HostStateWatch`).
 */
export const HOST_CENSUS_SQL = `SELECT count(*) AS hosts,
  coalesce(sum(CASE WHEN stopped_at IS NULL AND ? - heartbeat_at < ? THEN 1 ELSE 0 END), 0) AS online,
  coalesce(max(started_at), 0) AS started, coalesce(max(stopped_at), 0) AS stopped FROM hosts`;

export interface RawCensus {
  hosts: number;
  online: number;
  started: number;
  stopped: number;
}

/** The census as one comparable string. */
export const censusKey = (raw: RawCensus | undefined): string =>
  raw ? `${raw.hosts}:${raw.online}:${raw.started}:${raw.stopped}` : "0:0:0:0";

/** Whether a host is running at `now`: not stopped, and its heartbeat recent. */
export const hostOnline = (host: Pick<HostRow, "heartbeatAt" | "stoppedAt">, now: number): boolean =>
  host.stoppedAt === null && now - host.heartbeatAt < HOST_OFFLINE_MS;

/** One run of a host: its row as this daemon took it. */
export interface HostRun {
  id: string;
  pid: number;
  startedAt: number;
}

/** The row a daemon starts with (`register`). */
export interface HostStart {
  id: string;
  name: string;
  version: string;
  pid: number;
  now: number;
}

export const HOST_LIST_SQL = `SELECT h.*,
    (SELECT count(*) FROM sessions s WHERE s.host_id = h.id) AS sessions,
    (SELECT count(*) FROM triggers t WHERE t.host_id = h.id) AS bound
  FROM hosts h ORDER BY h.name`;

/** Deletes a host row only while no session names it (a session made meanwhile keeps it). */
export const FORGET_HOST_SQL =
  "DELETE FROM hosts WHERE id = ? AND NOT EXISTS (SELECT 1 FROM sessions WHERE host_id = hosts.id)";

/** Kinds whose monitors armed before hosts existed need their session's host (adoption). */
export const ADOPTED_BOUND_KINDS = ["command", "watch", "browser", "tool", "event"];

export class HostsTable {
  readonly #byName;
  readonly #byId;
  readonly #insert;
  readonly #restart;
  readonly #heartbeat;
  readonly #stop;
  readonly #list;
  readonly #brief;
  readonly #census;
  readonly #forget;
  readonly #releaseDevices;
  readonly #adoptTriggers;
  readonly #adoptSessions;
  readonly #adoptDevices;

  constructor(db: Db) {
    this.#byName = db.prepare<[string], Omit<RawHost, "sessions" | "bound">>("SELECT * FROM hosts WHERE name = ?");
    this.#insert = db.prepare(
      "INSERT INTO hosts (id, name, version, pid, started_at, heartbeat_at) VALUES (@id, @name, @version, @pid, @now, @now)",
    );
    this.#restart = db.prepare(
      "UPDATE hosts SET name = @name, version = @version, pid = @pid, started_at = @now, heartbeat_at = @now, stopped_at = NULL WHERE id = @id",
    );
    this.#byId = db.prepare<[string], Omit<RawHost, "sessions" | "bound">>("SELECT * FROM hosts WHERE id = ?");
    this.#heartbeat = db.prepare(
      "UPDATE hosts SET heartbeat_at = @now WHERE id = @id AND pid = @pid AND started_at = @startedAt AND stopped_at IS NULL",
    );
    this.#stop = db.prepare(
      "UPDATE hosts SET stopped_at = @now, heartbeat_at = @now WHERE id = @id AND pid = @pid AND started_at = @startedAt",
    );
    this.#list = db.prepare<[], RawHost>(HOST_LIST_SQL);
    this.#brief = db.prepare<[], Omit<RawHost, "sessions" | "bound">>(HOST_BRIEF_SQL);
    this.#census = db.prepare<[number, number], RawCensus>(HOST_CENSUS_SQL);
    this.#adoptTriggers = db.prepare(
      `UPDATE triggers SET host_id = ? WHERE host_id IS NULL AND monitor_uid IN (
         SELECT m.uid FROM monitors m JOIN sessions s ON s.id = m.session_id
          WHERE s.host_id IS NULL AND m.kind IN (SELECT value FROM json_each(?)))`,
    );
    this.#adoptSessions = db.prepare("UPDATE sessions SET host_id = ? WHERE host_id IS NULL");
    this.#forget = db.prepare(FORGET_HOST_SQL);
    this.#releaseDevices = db.prepare("UPDATE devices SET host_id = NULL WHERE host_id = ?");
    this.#adoptDevices = db.prepare("UPDATE devices SET host_id = ? WHERE host_id IS NULL");
  }

  /** The database's clock, in ms since the epoch: on SQLite, this machine's own. */
  clock(): number {
    return Date.now();
  }

  /** The host named `name`, if one ever ran (its row stays: sessions name it). */
  byName(name: string): HostBrief | undefined {
    const raw = this.#byName.get(name);
    return raw && toHostRow({ ...raw, sessions: 0, bound: 0 });
  }

  byId(id: string): HostBrief | undefined {
    const raw = this.#byId.get(id);
    return raw && toHostRow({ ...raw, sessions: 0, bound: 0 });
  }

  /** A new host's row. */
  insert(start: HostStart): void {
    this.#insert.run(start);
  }

  /** The host started again (after a stop or a crash; perhaps renamed): same id, new name, pid and start. */
  restart(start: HostStart): void {
    this.#restart.run(start);
  }

  /**
   * This run's heartbeat; false when the row is no longer this run's (another daemon took it over
   * while this one was cut off, or a copy of this home started elsewhere): this run must stop.
   */
  heartbeat(run: HostRun, now: number): boolean {
    return this.#heartbeat.run({ ...run, now }).changes > 0;
  }

  /** A clean stop of this run (a row taken over since is left to its new owner). */
  stop(run: HostRun, now: number): void {
    this.#stop.run({ ...run, now });
  }

  list(): HostRow[] {
    return this.#list.all().map(toHostRow);
  }

  /** Every host without counting what it holds. */
  /** The hosts' census at `now` (HOST_CENSUS_SQL), as one string. */
  census(now: number): string {
    return censusKey(this.#census.get(now, HOST_OFFLINE_MS));
  }

  brief(): HostBrief[] {
    return this.#brief.all().map((raw) => toHostRow({ ...raw, sessions: 0, bound: 0 }));
  }

  /**
   * Forgets a host that holds no session (its devices are left for the next host that starts to
   * adopt); false when it has sessions or is not there. The caller checks it is not running.
   */
  forget(id: string): boolean {
    const gone = this.#forget.run(id).changes > 0;
    if (gone) this.#releaseDevices.run(id);
    return gone;
  }

  /**
   * Sessions, devices and machine-bound triggers made before hosts existed (host NULL) become this
   * host's: they were made where the database's only daemon ran. Returns how many sessions.
   */
  adopt(id: string): number {
    this.#adoptTriggers.run(id, JSON.stringify(ADOPTED_BOUND_KINDS));
    this.#adoptDevices.run(id);
    return this.#adoptSessions.run(id).changes;
  }
}
