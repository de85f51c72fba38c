/**
 * The hosts table on PostgreSQL (team mode, #27): the SQL of store/hosts.ts with `$n` placeholders.
 * Design: docs/design.md §9.1.
 */
import type { HostsStore } from "../engine.js";
import {
  ADOPTED_BOUND_KINDS,
  censusKey,
  FORGET_HOST_SQL,
  HOST_BRIEF_SQL,
  HOST_CENSUS_SQL,
  HOST_LIST_SQL,
  HOST_OFFLINE_MS,
  type HostBrief,
  type HostRow,
  type HostRun,
  type HostStart,
  type RawCensus,
  type RawHost,
  toHostRow,
} from "../hosts.js";
import { all, one, type Queryable, run, statement } from "./statement.js";

const CLOCK = statement("hosts_clock", "SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now");
const BY_ID = statement("hosts_by_id", "SELECT * FROM hosts WHERE id = $1");
// Locked: two daemons starting under one name take it one after the other.
const BY_NAME = statement("hosts_by_name", "SELECT * FROM hosts WHERE name = $1 FOR UPDATE");
const INSERT = statement(
  "hosts_insert",
  "INSERT INTO hosts (id, name, version, pid, started_at, heartbeat_at) VALUES ($1, $2, $3, $4, $5, $5)",
);
const RESTART = statement(
  "hosts_restart",
  "UPDATE hosts SET name = $5, version = $2, pid = $3, started_at = $4, heartbeat_at = $4, stopped_at = NULL WHERE id = $1",
);
const HEARTBEAT = statement(
  "hosts_heartbeat",
  "UPDATE hosts SET heartbeat_at = $1 WHERE id = $2 AND pid = $3 AND started_at = $4 AND stopped_at IS NULL",
);
const STOP = statement(
  "hosts_stop",
  "UPDATE hosts SET stopped_at = $1, heartbeat_at = $1 WHERE id = $2 AND pid = $3 AND started_at = $4",
);
const LIST = statement("hosts_list", HOST_LIST_SQL);
const BRIEF = statement("hosts_brief", HOST_BRIEF_SQL);
const CENSUS = statement(
  "hosts_census",
  HOST_CENSUS_SQL.replace("? - heartbeat_at < ?", "$1::bigint - heartbeat_at < $2::bigint"),
);
const ADOPT_TRIGGERS = statement(
  "hosts_adopt_triggers",
  `UPDATE triggers SET host_id = $1 WHERE host_id IS NULL AND monitor_uid IN (
     SELECT m.uid FROM monitors m JOIN sessions s ON s.id = m.session_id
      WHERE s.host_id IS NULL AND m.kind = ANY($2::text[]))`,
);
const FORGET = statement("hosts_forget", FORGET_HOST_SQL.replace("?", "$1"));
const RELEASE_DEVICES = statement("hosts_release_devices", "UPDATE devices SET host_id = NULL WHERE host_id = $1");
const ADOPT_SESSIONS = statement("hosts_adopt_sessions", "UPDATE sessions SET host_id = $1 WHERE host_id IS NULL");
const ADOPT_DEVICES = statement("hosts_adopt_devices", "UPDATE devices SET host_id = $1 WHERE host_id IS NULL");

export class PgHosts implements HostsStore {
  constructor(private readonly db: Queryable) {}

  async clock(): Promise<number> {
    const row = await one<{ now: number }>(this.db, CLOCK);
    if (!row) throw new Error("Expected the database to tell its time, got no row");
    return row.now;
  }

  async byName(name: string): Promise<HostBrief | undefined> {
    const raw = await one<Omit<RawHost, "sessions" | "bound">>(this.db, BY_NAME, [name]);
    return raw && toHostRow({ ...raw, sessions: 0, bound: 0 });
  }

  async byId(id: string): Promise<HostBrief | undefined> {
    const raw = await one<Omit<RawHost, "sessions" | "bound">>(this.db, BY_ID, [id]);
    return raw && toHostRow({ ...raw, sessions: 0, bound: 0 });
  }

  async insert(start: HostStart): Promise<void> {
    await run(this.db, INSERT, [start.id, start.name, start.version, start.pid, start.now]);
  }

  async restart(start: HostStart): Promise<void> {
    await run(this.db, RESTART, [start.id, start.version, start.pid, start.now, start.name]);
  }

  async heartbeat(host: HostRun, now: number): Promise<boolean> {
    return (await run(this.db, HEARTBEAT, [now, host.id, host.pid, host.startedAt])) > 0;
  }

  async stop(host: HostRun, now: number): Promise<void> {
    await run(this.db, STOP, [now, host.id, host.pid, host.startedAt]);
  }

  async list(): Promise<HostRow[]> {
    return (await all<RawHost>(this.db, LIST)).map(toHostRow);
  }

  async census(now: number): Promise<string> {
    return censusKey(await one<RawCensus>(this.db, CENSUS, [now, HOST_OFFLINE_MS]));
  }

  async brief(): Promise<HostBrief[]> {
    const rows = await all<Omit<RawHost, "sessions" | "bound">>(this.db, BRIEF);
    return rows.map((raw) => toHostRow({ ...raw, sessions: 0, bound: 0 }));
  }

  async forget(id: string): Promise<boolean> {
    const gone = (await run(this.db, FORGET, [id])) > 0;
    if (gone) await run(this.db, RELEASE_DEVICES, [id]);
    return gone;
  }

  async adopt(id: string): Promise<number> {
    await run(this.db, ADOPT_TRIGGERS, [id, ADOPTED_BOUND_KINDS]);
    await run(this.db, ADOPT_DEVICES, [id]);
    return run(this.db, ADOPT_SESSIONS, [id]);
  }
}
