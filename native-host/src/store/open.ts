/**
 * Opens the daemon's store on one of its two engines (team mode, #27): the embedded SQLite file in
 * the home (the default), or PostgreSQL at a URL (`VIGIL_DATABASE_URL`, `vigil serve --database`),
 * migrated at start under an advisory lock so daemons starting together migrate once. The vault's
 * values stay in the home's `vault.json` on either engine.
 * Design: docs/design.md §9.
 */
import { chmodSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type pg from "pg";
import type { Logger } from "../base/log.js";
import { Checkpointer } from "./checkpointer.js";
import { type Engine, SqliteEngine } from "./engine.js";
import { createPool, type PoolOptions, redactUrl } from "./pg/connection.js";
import { migratePg } from "./pg/migrate.js";
import { PgEngine } from "./pg/store.js";
import { Store } from "./store.js";
import { classify } from "./unreachable.js";
import { VaultFile } from "./vault-file.js";

export interface OpenedStore {
  store: Engine;
  /** Where the data lives, for the log: the SQLite file, or the URL without its password. */
  where: string;
  /** Stops what the engine runs beside the store (SQLite's checkpointer) and closes it. */
  close(): Promise<void>;
  /** PostgreSQL's pool (team mode: the team link sends its notices on it). */
  pool?: pg.Pool;
}

export interface OpenOptions {
  /** The home's SQLite file (used when `url` is not given). */
  dbFile: string;
  /** A PostgreSQL URL: the store lives there instead. */
  url?: string;
  /** Shown in pg_stat_activity. */
  applicationName?: string;
  /** PostgreSQL's pool: its size and statement timeout (the settings databasePoolMax, databaseStatementTimeoutMs). */
  pool?: Pick<PoolOptions, "max" | "statementTimeoutMs">;
  checkScope?: boolean;
  /** Where warnings go (the checkpointer's). */
  log: Pick<Logger, "warn">;
}

export async function openStore(options: OpenOptions): Promise<OpenedStore> {
  return options.url === undefined ? openSqlite(options) : openPostgres(options, options.url);
}

function openSqlite(options: OpenOptions): OpenedStore {
  const sqlite = Store.open(options.dbFile);
  for (const suffix of ["", "-wal", "-shm"]) {
    if (existsSync(options.dbFile + suffix)) chmodSync(options.dbFile + suffix, 0o600);
  }
  const checkpointer = new Checkpointer(sqlite.db, {
    onError: (message) => options.log.warn(`WAL checkpoint: ${message}`),
  });
  sqlite.afterCommit = () => checkpointer.noteWrite();
  const store = new SqliteEngine(sqlite, { checkScope: options.checkScope });
  return {
    store,
    where: options.dbFile,
    close: async () => {
      await checkpointer.stop();
      await store.close();
    },
  };
}

async function openPostgres(options: OpenOptions, url: string): Promise<OpenedStore> {
  const pool = createPool({ url, applicationName: options.applicationName ?? "vigil", ...options.pool });
  try {
    const client = await pool.connect();
    try {
      const { rows } = await client.query<{ num: string; text: string }>(
        "SELECT current_setting('server_version_num') AS num, current_setting('server_version') AS text",
      );
      checkServerVersion(Number(rows[0]?.num), String(rows[0]?.text));
      await migratePg(client);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end();
    const classified = classify(error, url);
    if (classified !== error) throw classified;
    // A wrong role, database, password or host name: say where, never with the password.
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`PostgreSQL at ${redactUrl(url)}: ${message}${certificateHint(error)}`, { cause: error });
  }
  const vault = new VaultFile(join(dirname(options.dbFile), "vault.json"));
  const store = new PgEngine(pool, vault, { checkScope: options.checkScope });
  return { store, where: redactUrl(url), close: () => store.close(), pool };
}

/** The oldest PostgreSQL Vigil runs on: 13 added `pg_xact_status`, which delivery asks after a lost commit. */
export const MIN_SERVER_VERSION_NUM = 130000;

/** Refuses a server older than PostgreSQL 13, naming the version it is. */
export function checkServerVersion(versionNum: number, version: string): void {
  if (!(versionNum >= MIN_SERVER_VERSION_NUM)) {
    throw new Error(
      `Expected PostgreSQL 13 or later (delivery asks pg_xact_status whether a commit whose answer was lost took), got ${version}`,
    );
  }
}

/** What to check when TLS refused the server's certificate (sslmode verify-ca, verify-full). */
function certificateHint(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || !/CERT|SELF_SIGNED|ISSUER|ALTNAME|UNABLE_TO_VERIFY/.test(code)) return "";
  return " (the server's certificate was refused: check that sslrootcert names the CA that signed it, and that the URL's host is a name the certificate lists)";
}
