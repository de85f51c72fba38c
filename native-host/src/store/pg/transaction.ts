/**
 * One PostgreSQL transaction (team mode, #27): what `Store.tx` becomes on this engine. SQLite's
 * `BEGIN IMMEDIATE` makes every write transaction wait for the one before it; here transactions of
 * several daemons run at once, so the core takes row locks where it reads in order to write (the
 * work record `FOR UPDATE`), and two transactions that lock the same rows in opposite orders can
 * deadlock: PostgreSQL then aborts one (40P01), and it is run again from the start, as is one that
 * lost a serialization race (40001). The body must therefore only read and write through the client
 * it is given, and keep side effects outside (the core's transactions already do: they return what
 * happened, and the caller acts after the commit).
 * Not wired into the daemon yet.
 * Design: docs/design.md §9 (team mode gets its own section with #27).
 */
import type pg from "pg";
import { classify } from "../unreachable.js";

const RETRYABLE = new Set(["40P01", "40001"]);

export interface TransactionOptions {
  /** Attempts in all, for deadlocks and serialization failures (default 5). */
  attempts?: number;
  /** For the unreachable error's message (shown redacted). */
  url?: string;
  /** Called before each retry, with the error that caused it (for the log). */
  onRetry?: (error: unknown, attempt: number) => void;
}

/** Runs `body` in one transaction on a pooled connection; commits its result, or rolls back and throws. */
export async function transaction<T>(
  pool: pg.Pool,
  body: (client: pg.PoolClient) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  const attempts = options.attempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw classify(error, options.url ?? "the database");
    }
    let broken: unknown;
    try {
      await client.query("BEGIN");
      const result = await body(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch((rollbackError: unknown) => {
        // A connection that cannot even roll back is not handed out again.
        broken = rollbackError;
      });
      const code = (error as { code?: string }).code;
      if (code !== undefined && RETRYABLE.has(code) && attempt < attempts) {
        options.onRetry?.(error, attempt);
        continue;
      }
      throw classify(error, options.url ?? "the database");
    } finally {
      client.release(broken instanceof Error ? broken : undefined);
    }
  }
}
