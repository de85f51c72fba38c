/**
 * The PostgreSQL migration runner (native-host/src/store/pg/migrate.ts, team mode #27) against a
 * real PostgreSQL 15: daemons starting together migrate once, a second run changes nothing, a
 * failed migration leaves nothing behind, a newer schema is refused; and the PostgreSQL schema is
 * the SQLite one (table by table, column by column) as of SQLITE_SCHEMA_PARITY.
 */
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadMigrations, type Migration, migrate } from "../../native-host/src/store/db.js";
import {
  loadPgMigrations,
  migratePg,
  SchemaTooNewError,
  SQLITE_ONLY_TABLES,
  SQLITE_SCHEMA_PARITY,
} from "../../native-host/src/store/pg/migrate.js";
import type { TestPostgres } from "../helpers/postgres.js";
import { sharedPostgres } from "./shared.js";

let server: TestPostgres;
const clients: pg.Client[] = [];
let databases = 0;

beforeAll(async () => {
  server = sharedPostgres();
});

afterAll(async () => {
  for (const client of clients) await client.end().catch(() => undefined);
  await server?.stop();
});

/** A fresh database and `n` connections to it. */
async function freshDatabase(n: number): Promise<pg.Client[]> {
  databases += 1;
  const url = await server.createDatabase(`vigil_migrate_${databases}`);
  const made: pg.Client[] = [];
  for (let i = 0; i < n; i++) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    clients.push(client);
    made.push(client);
  }
  return made;
}

/** Everything a migration makes: tables and columns, indexes, triggers, and what was recorded. */
async function schemaOf(client: pg.Client) {
  const columns = await client.query(
    `SELECT table_name, column_name, data_type, is_nullable, column_default
       FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, column_name`,
  );
  const indexes = await client.query(
    "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexname",
  );
  const triggers = await client.query("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal ORDER BY tgname");
  const recorded = await client.query("SELECT version, name FROM vigil_migrations ORDER BY version");
  return { columns: columns.rows, indexes: indexes.rows, triggers: triggers.rows, recorded: recorded.rows };
}

describe("PostgreSQL migrations", () => {
  test("two daemons starting together migrate once: the second waits for the lock and finds nothing to do", async () => {
    const [a, b] = (await freshDatabase(2)) as [pg.Client, pg.Client];
    const real = loadPgMigrations();
    // The first migration is held open long enough that both runners are certainly inside at once.
    const slow = real.map((m, i) => (i === 0 ? { ...m, sql: `${m.sql}\nSELECT pg_sleep(0.5);` } : m));
    const results = await Promise.all([migratePg(a, { migrations: slow }), migratePg(b, { migrations: slow })]);
    const versions = real.map((m) => m.version);
    expect(results.sort((x, y) => x.length - y.length)).toEqual([[], versions]);
    const { rows } = await a.query("SELECT version FROM vigil_migrations ORDER BY version");
    expect(rows.map((row) => row.version)).toEqual(versions);
    // The lock was released: a third run takes it at once and changes nothing.
    const before = await schemaOf(a);
    expect(await migratePg(b, { lockTimeoutMs: 1000 })).toEqual([]);
    expect(await schemaOf(a)).toEqual(before);
  });

  test("a runner that cannot get the lock in time says so, and migrates nothing", async () => {
    const [holder, waiter] = (await freshDatabase(2)) as [pg.Client, pg.Client];
    await holder.query("SELECT pg_advisory_lock('8532464671515110759'::bigint)");
    await expect(migratePg(waiter, { lockTimeoutMs: 200 })).rejects.toThrow(
      /Expected to take the migration lock within 200 ms, but another Vigil daemon held it/,
    );
    const { rows } = await waiter.query("SELECT to_regclass('sessions') AS sessions");
    expect(rows[0].sessions).toBeNull();
    await holder.query("SELECT pg_advisory_unlock('8532464671515110759'::bigint)");
    expect(await migratePg(waiter)).toEqual(loadPgMigrations().map((m) => m.version));
  });

  test("a failing migration is rolled back whole and not recorded; the next run applies it once fixed", async () => {
    const [client] = (await freshDatabase(1)) as [pg.Client];
    const first = loadPgMigrations()[0] as Migration;
    const broken = {
      version: 2,
      name: "0002_broken.sql",
      sql: "CREATE TABLE half (x int); SELECT no_such_function();",
    };
    await expect(migratePg(client, { migrations: [first, broken] })).rejects.toThrow(
      /PostgreSQL migration 0002_broken.sql failed and was rolled back/,
    );
    const { rows } = await client.query("SELECT version FROM vigil_migrations ORDER BY version");
    expect(rows.map((row) => row.version)).toEqual([1]);
    const half = await client.query("SELECT to_regclass('half') AS half");
    expect(half.rows[0].half).toBeNull();
    const fixed = { ...broken, sql: "CREATE TABLE half (x int);" };
    expect(await migratePg(client, { migrations: [first, fixed] })).toEqual([2]);
  });

  test("a database migrated by a newer Vigil is refused, not run on", async () => {
    const [client] = (await freshDatabase(1)) as [pg.Client];
    await migratePg(client);
    await client.query("INSERT INTO vigil_migrations (version, name) VALUES (99, '0099_future.sql')");
    const newest = loadPgMigrations().at(-1)?.version;
    await expect(migratePg(client)).rejects.toThrow(SchemaTooNewError);
    await expect(migratePg(client)).rejects.toThrow(
      `Expected a database at PostgreSQL migration ${newest} or earlier (the newest this Vigil knows), got 99`,
    );
  });
});

describe("the PostgreSQL schema is the SQLite schema", () => {
  test(`same tables, columns, types, nullability and indexes as SQLite after migration ${SQLITE_SCHEMA_PARITY}`, async () => {
    const sqlite = new Database(":memory:");
    migrate(
      sqlite,
      loadMigrations().filter((m) => m.version <= SQLITE_SCHEMA_PARITY),
    );
    const sqliteTables: Record<string, string[]> = {};
    const tableNames = sqlite
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .all()
      .map((row) => row.name)
      .filter((name) => !SQLITE_ONLY_TABLES.includes(name));
    for (const table of tableNames) {
      const info = sqlite.pragma(`table_info(${table})`) as Array<{
        name: string;
        type: string;
        notnull: number;
        pk: number;
      }>;
      // A primary key column is never NULL in PostgreSQL; SQLite's INTEGER is PostgreSQL's bigint.
      sqliteTables[table] = info
        .map(
          (c) =>
            `${c.name} ${c.type === "INTEGER" ? "bigint" : c.type.toLowerCase()}${c.notnull || c.pk ? " not null" : ""}`,
        )
        .sort();
    }
    const sqliteIndexes = sqlite
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%'")
      .all()
      .map((row) => row.name)
      .sort();
    const sqliteTriggers = sqlite
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'trigger'")
      .all()
      .filter((row) => !SQLITE_ONLY_TABLES.some((table) => row.name.startsWith(table)))
      .map((row) => row.name);
    sqlite.close();

    const [client] = (await freshDatabase(1)) as [pg.Client];
    await migratePg(client);
    const { rows } = await client.query<{
      table_name: string;
      column_name: string;
      data_type: string;
      is_nullable: string;
    }>(
      `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name <> 'vigil_migrations'`,
    );
    const pgTables: Record<string, string[]> = {};
    for (const row of rows) {
      const columns = pgTables[row.table_name] ?? [];
      columns.push(`${row.column_name} ${row.data_type}${row.is_nullable === "NO" ? " not null" : ""}`);
      pgTables[row.table_name] = columns;
    }
    for (const columns of Object.values(pgTables)) columns.sort();
    expect(pgTables).toEqual(sqliteTables);

    // Indexes made by CREATE INDEX (a constraint's own index is implied by the columns above).
    const pgIndexes = await client.query<{ indexname: string }>(
      `SELECT indexname FROM pg_indexes i WHERE schemaname = current_schema()
          AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
    );
    expect(pgIndexes.rows.map((row) => row.indexname).sort()).toEqual(sqliteIndexes);
    const pgTriggers = await client.query<{ tgname: string }>("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal");
    expect(pgTriggers.rows.map((row) => row.tgname)).toEqual(sqliteTriggers);
  });

  test("the schema keeps its promises on PostgreSQL: one ending wake per monitor, delivered wakes final, states checked", async () => {
    const [client] = (await freshDatabase(1)) as [pg.Client];
    await migratePg(client);
    await client.query("INSERT INTO sessions (id, created_at) VALUES ('s', 0)");
    const { rows } = await client.query<{ uid: string }>(
      "INSERT INTO monitors (session_id, id, name, kind, source, timeout_ms, created_at) VALUES ('s', 'mon-1', 'n', 'command', '{}', 1, 0) RETURNING uid",
    );
    const uid = rows[0]?.uid;
    const insert = (key: string, kind = "ending") =>
      client.query(
        "INSERT INTO wakes (session_id, monitor_uid, dedupe_key, kind, text, payload, created_at) VALUES ('s', $1, $2, $3, 't', '{}', 0)",
        [uid, key, kind],
      );
    await insert("end:1");
    await expect(insert("end:1")).rejects.toThrow(/wakes_dedupe_key_key/);
    await expect(insert("end:1-again")).rejects.toThrow(/wakes_one_ending/);
    await insert("events:1:3", "events");
    await client.query("UPDATE wakes SET state = 'delivered' WHERE dedupe_key = 'end:1'");
    await expect(client.query("UPDATE wakes SET state = 'ready' WHERE dedupe_key = 'end:1'")).rejects.toThrow(
      /a delivered or cancelled wake is final/,
    );
    await expect(client.query("UPDATE monitors SET state = 'bogus'")).rejects.toThrow(/monitors_state_check/);
    // Ids are never handed out twice: the newest deleted, the next is still higher.
    const { rows: wakes } = await client.query<{ id: string }>("SELECT max(id) AS id FROM wakes");
    await client.query("DELETE FROM wakes WHERE kind = 'events'");
    await insert("events:1:4", "events");
    const { rows: next } = await client.query<{ id: string }>("SELECT max(id) AS id FROM wakes");
    expect(Number(next[0]?.id)).toBeGreaterThan(Number(wakes[0]?.id));
  });
});
