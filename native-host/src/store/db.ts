/**
 * Opens the database (WAL) and applies the numbered migrations in `migrations/`, one transaction
 * each, recorded in `PRAGMA user_version` (graphile-worker's scheme, on SQLite).
 * Design: docs/design.md §1, §9.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { envConfig } from "../base/config.js";
import { sourceDir } from "../base/paths.js";

export type Db = Database.Database;

const MIGRATIONS_DIR = join(sourceDir, "store", "migrations");

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d{4}_[\w-]+\.sql$/.test(file))
    .sort()
    .map((file) => ({ version: Number(file.slice(0, 4)), name: file, sql: readFileSync(join(dir, file), "utf8") }));
}

/**
 * Applies the migrations not yet applied. Foreign keys are off while they run, as SQLite's table
 * rebuild procedure asks (a DROP TABLE of a rebuilt parent would otherwise cascade-delete its
 * children's rows; the pragma is a no-op inside a transaction, so it is set around them), and each
 * migration commits only if `foreign_key_check` then finds every reference intact.
 */
export function migrate(db: Db, migrations = loadMigrations()): number[] {
  const applied: number[] = [];
  const pending = migrations.filter((m) => m.version > (db.pragma("user_version", { simple: true }) as number));
  if (pending.length === 0) return applied;
  const foreignKeys = db.pragma("foreign_keys", { simple: true }) as number;
  db.pragma("foreign_keys = OFF");
  try {
    for (const migration of pending) {
      const current = db.pragma("user_version", { simple: true }) as number;
      if (migration.version !== current + 1) {
        throw new Error(`Expected migration ${current + 1} next, got ${migration.name}`);
      }
      db.transaction(() => {
        db.exec(migration.sql);
        const broken = db.pragma("foreign_key_check") as Array<{ table: string; parent: string }>;
        if (broken.length > 0) {
          const first = broken[0] as { table: string; parent: string };
          throw new Error(
            `Expected ${migration.name} to keep every reference intact, got ${broken.length} broken (first: ${first.table} → ${first.parent})`,
          );
        }
        db.pragma(`user_version = ${migration.version}`);
      }).immediate();
      applied.push(migration.version);
    }
  } finally {
    if (foreignKeys) db.pragma("foreign_keys = ON");
  }
  return applied;
}

/** How long a statement waits for another connection's lock before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;

export function openDb(file: string): Db {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  // NORMAL in WAL mode survives a process crash (kill -9) without loss; only a power cut can
  // lose the last transactions. FULL is selectable for machines where that matters.
  db.pragma(`synchronous = ${envConfig().VIGIL_SYNCHRONOUS === "full" ? "FULL" : "NORMAL"}`);
  db.pragma("foreign_keys = ON");
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  migrate(db);
  return db;
}
