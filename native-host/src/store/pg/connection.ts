/**
 * Connecting to PostgreSQL (team mode, #27): the pool every store call uses, how a URL is shown
 * (never with its password) and where a password may come from; which errors mean "database
 * unreachable" is store/unreachable.ts, which the layers above read without knowing this engine.
 * Passwords come from the environment (VIGIL_DATABASE_URL, PGPASSWORD) or a 0600 file (PGPASSFILE,
 * ~/.pgpass: node-postgres reads it and refuses one that others can read) — never from argv. And
 * the advisory lock that keeps the team's housekeeping to one daemon at a time.
 * Design: docs/design.md §9.1.
 */
import pg from "pg";
import { libpqUrl } from "../../base/database-url.js";

const INT8_OID = 20;

/**
 * bigint columns (milliseconds, counts, ids) as numbers, as better-sqlite3 gives them; one beyond
 * 2^53 would lose digits, so it throws instead. Set per pool, never on pg's global types.
 */
export function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`Expected a bigint within ±2^53 from PostgreSQL, got ${text}`);
  return value;
}

const TYPES = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8_OID && format !== "binary"
      ? parseInt8
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export { checkArgvUrl, redactUrl } from "../../base/database-url.js";

export interface PoolOptions {
  url: string;
  /** Shown in pg_stat_activity: "vigil/<host name>". */
  applicationName: string;
  max?: number;
  /** Waiting for a connection longer than this fails as unreachable (default 5 s). */
  connectTimeoutMs?: number;
  /** PostgreSQL cancels a statement running longer than this (its statement_timeout; 0 or absent: none). */
  statementTimeoutMs?: number;
}

export function createPool(options: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: libpqUrl(options.url),
    application_name: options.applicationName,
    ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    keepAlive: true,
    // A transaction left open by a stuck daemon must not hold row locks for ever.
    idle_in_transaction_session_timeout: 60_000,
    types: TYPES,
  });
  // An idle connection that the server ends (restart, failover) errors here; the pool drops it and
  // the next query connects afresh. Without a listener that error would end the process.
  pool.on("error", () => undefined);
  // A connection in use but between two statements (a transaction's body at work, the housekeeping
  // lock held) learns of a server shutdown as an 'error' event of its own, not of a query: without
  // a listener, that ends the process. Its next statement then fails as unreachable (a 503 for a
  // signal) and the transaction hands the connection back as broken.
  pool.on("connect", (client) => client.on("error", () => undefined));
  return pool;
}

/** The advisory lock key housekeeping takes: the first eight bytes of "vigil:hk" as a bigint. */
export const HOUSEKEEPING_LOCK_KEY = "8532464671515109483";

/**
 * Work one daemon of the team does at a time (the hourly purges): run under a session advisory lock
 * taken without waiting, on a connection of its own. Another daemon holding it means the work is
 * being done: `run` is skipped and this returns false.
 */
export async function whileLockFree(pool: pg.Pool, key: string, run: () => Promise<void>): Promise<boolean> {
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ got: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS got", [key]);
    if (!rows[0]?.got) return false;
    try {
      await run();
    } finally {
      await client.query("SELECT pg_advisory_unlock($1::bigint)", [key]);
    }
    return true;
  } finally {
    client.release();
  }
}
