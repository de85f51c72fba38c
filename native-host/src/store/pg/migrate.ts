/**
 * PostgreSQL migrations (team mode, #27): the numbered `.sql` files in `pg/migrations/`, applied
 * in order, one transaction each, recorded in `vigil_migrations` — the SQLite runner's scheme
 * (store/db.ts), with one addition: daemons that start together on one database migrate it once.
 * The whole run holds a session advisory lock, so a second runner waits for the first and then
 * finds nothing left to apply; a runner that dies drops its connection and with it the lock.
 * A database migrated further than this daemon knows is refused (an older daemon must not run on a
 * schema it does not understand), as graphile-worker refuses one.
 * Not wired into the daemon yet.
 * Design: docs/design.md §9 (team mode gets its own section with #27).
 */
import { join } from "node:path";
import type pg from "pg";
import { sourceDir } from "../../base/paths.js";
import { loadMigrations, type Migration } from "../db.js";

export const PG_MIGRATIONS_DIR = join(sourceDir, "store", "pg", "migrations");

/**
 * The advisory lock key migrations take: the first eight bytes of "vigil:mg" as a bigint. Advisory
 * locks are per database, so daemons on other databases of the same server do not wait.
 */
export const MIGRATION_LOCK_KEY = "8532464671515110759";

/**
 * The SQLite migration whose schema the PostgreSQL migrations reproduce (test/postgres/pg-migrate.test.ts
 * compares them table by table). A SQLite migration after it needs its PostgreSQL counterpart, and
 * then this number moves up.
 */
export const SQLITE_SCHEMA_PARITY = 24;

/**
 * SQLite's tables with no PostgreSQL counterpart, left out of that comparison with their triggers:
 * `monitor_search` (migrations 0016, 0023) keeps the side panel's search text, filled by triggers;
 * PostgreSQL reads the same text from the tables (`store/pg/panel.ts`), so 0023 has no counterpart.
 */
export const SQLITE_ONLY_TABLES: readonly string[] = ["monitor_search"];

export function loadPgMigrations(dir = PG_MIGRATIONS_DIR): Migration[] {
  return loadMigrations(dir);
}

export class SchemaTooNewError extends Error {
  override name = "SchemaTooNewError";
}

export interface MigrateOptions {
  migrations?: Migration[];
  /** How long to wait for another daemon's migration run before giving up (default 2 minutes). */
  lockTimeoutMs?: number;
}

/**
 * Applies the migrations not yet applied, on `client` (a connection of its own: the advisory lock
 * belongs to its session). Returns the versions it applied; [] when another runner did them.
 */
export async function migratePg(client: pg.ClientBase, options: MigrateOptions = {}): Promise<number[]> {
  const migrations = options.migrations ?? loadPgMigrations();
  const lockTimeoutMs = options.lockTimeoutMs ?? 120_000;
  if (!Number.isInteger(lockTimeoutMs) || lockTimeoutMs < 1) {
    throw new Error(`Expected lockTimeoutMs to be a positive whole number of milliseconds, got ${lockTimeoutMs}`);
  }
  // lock_timeout also bounds the wait for an advisory lock; it is restored before returning.
  const { rows: before } = await client.query<{ lock_timeout: string }>(
    "SELECT current_setting('lock_timeout') AS lock_timeout",
  );
  await client.query(`SET lock_timeout = ${lockTimeoutMs}`);
  try {
    await client.query("SELECT pg_advisory_lock($1::bigint)", [MIGRATION_LOCK_KEY]);
  } catch (error) {
    await client.query("SELECT set_config('lock_timeout', $1, false)", [before[0]?.lock_timeout ?? "0"]);
    if ((error as { code?: string }).code === "55P03") {
      throw new Error(
        `Expected to take the migration lock within ${lockTimeoutMs} ms, but another Vigil daemon held it all that time`,
        { cause: error },
      );
    }
    throw error;
  }
  try {
    await client.query("SELECT set_config('lock_timeout', $1, false)", [before[0]?.lock_timeout ?? "0"]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS vigil_migrations (
         version    integer PRIMARY KEY,
         name       text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const { rows } = await client.query<{ version: number | null }>(
      "SELECT max(version) AS version FROM vigil_migrations",
    );
    const current = rows[0]?.version ?? 0;
    const newest = migrations.at(-1)?.version ?? 0;
    if (current > newest) {
      throw new SchemaTooNewError(
        `Expected a database at PostgreSQL migration ${newest} or earlier (the newest this Vigil knows), got ${current}: a newer Vigil migrated it; upgrade this one`,
      );
    }
    const applied: number[] = [];
    let expected = current + 1;
    for (const migration of migrations.filter((m) => m.version > current)) {
      if (migration.version !== expected) {
        throw new Error(`Expected PostgreSQL migration ${expected} next, got ${migration.name}`);
      }
      await client.query("BEGIN");
      try {
        await client.query(migration.sql);
        await client.query("INSERT INTO vigil_migrations (version, name) VALUES ($1, $2)", [
          migration.version,
          migration.name,
        ]);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw new Error(`PostgreSQL migration ${migration.name} failed and was rolled back`, { cause: error });
      }
      applied.push(migration.version);
      expected += 1;
    }
    return applied;
  } finally {
    // A broken connection has dropped the lock already; its error must not hide the first one.
    await client.query("SELECT pg_advisory_unlock($1::bigint)", [MIGRATION_LOCK_KEY]).catch(() => undefined);
  }
}
