/**
 * One PostgreSQL transaction (team mode, #27): what `Store.tx` becomes on this engine. SQLite's
 * `BEGIN IMMEDIATE` makes every write transaction wait for the one before it; here transactions of
 * several daemons run at once, so the core takes row locks where it reads in order to write (the
 * work record `FOR UPDATE`), and two transactions that lock the same rows in opposite orders can
 * deadlock: PostgreSQL then aborts one (40P01), and it is run again from the start, as is one that
 * lost a serialization race (40001). The body must therefore only read and write through the client
 * it is given, and keep side effects outside (the core's transactions already do: they return what
 * happened, and the caller acts after the commit).
 * Design: docs/design.md §9.1.
 */
import type pg from "pg";
import { redactUrl } from "../../base/database-url.js";
import { CommitUnknownError, classify, DatabaseUnreachableError, isUnreachable } from "../unreachable.js";

const RETRYABLE = new Set(["40P01", "40001"]);

export interface TransactionOptions {
  /** Attempts in all, for deadlocks and serialization failures (default 5). */
  attempts?: number;
  /** For the unreachable error's message (shown redacted). */
  url?: string;
  /** Called before each retry, with the error that caused it (for the log). */
  onRetry?: (error: unknown, attempt: number) => void;
}

/**
 * Runs `body` in one transaction on a pooled connection; commits its result, or rolls back and throws.
 * `checkable`: the transaction notes its id as it begins (in the same round trip), so that when the
 * connection is cut while its COMMIT runs, the throw is a CommitUnknownError whose `ended()`
 * resolves once the server is back and the transaction no longer runs; what it wrote then says
 * whether it took (design.md §9.1).
 */
export async function transaction<T>(
  pool: pg.Pool,
  body: (client: pg.PoolClient) => Promise<T>,
  options: TransactionOptions = {},
  checkable = false,
): Promise<T> {
  const attempts = options.attempts ?? 5;
  const url = options.url ?? "the database";
  for (let attempt = 1; ; attempt++) {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw classify(error, url);
    }
    let broken: unknown;
    let xact: string | null = null;
    let committing = false;
    try {
      if (checkable) {
        const begun = (await client.query(
          "BEGIN; SELECT pg_current_xact_id()::text AS xact",
        )) as unknown as pg.QueryResult[];
        const noted = Array.isArray(begun) ? begun[1]?.rows[0]?.xact : undefined;
        if (typeof noted !== "string") throw new Error(`Expected BEGIN to note the transaction's id, got ${noted}`);
        xact = noted;
      } else await client.query("BEGIN");
      const result = await body(client);
      committing = true;
      await client.query("COMMIT");
      return result;
    } catch (error) {
      if (committing && xact !== null && isUnreachable(error)) {
        broken = error;
        throw new CommitUnknownError(
          `database unreachable at ${redactUrl(url)}: ${(error as Error).message} (cut while a transaction committed)`,
          { cause: error },
          () => transactionEnded(pool, xact as string, url),
        );
      }
      await client.query("ROLLBACK").catch((rollbackError: unknown) => {
        // A connection that cannot even roll back is not handed out again.
        broken = rollbackError;
      });
      const code = (error as { code?: string }).code;
      if (code !== undefined && RETRYABLE.has(code) && attempt < attempts) {
        options.onRetry?.(error, attempt);
        continue;
      }
      throw classify(error, url);
    } finally {
      client.release(broken instanceof Error ? broken : undefined);
    }
  }
}

/**
 * Resolves once transaction `xact` is surely no longer running (committed, aborted, or unknown to
 * the server: after a crash, an id whose commit never reached the log may even be handed out again,
 * so its status alone cannot say whether it committed; the caller looks at what it wrote). Throws
 * while the server is away, or while the cut connection's server process still runs it.
 */
export async function transactionEnded(pool: pg.Pool, xact: string, url: string): Promise<void> {
  let status: string | null;
  try {
    const result = await pool.query<{ status: string | null }>("SELECT pg_xact_status($1::xid8) AS status", [xact]);
    status = result.rows[0]?.status ?? null;
  } catch (error) {
    // 22023: an id the server has not reached since its crash (it never reached the log): not running.
    if ((error as { code?: string }).code === "22023") return;
    throw classify(error, url);
  }
  if (status === "in progress")
    throw new DatabaseUnreachableError(
      `database unreachable at ${redactUrl(url)}: transaction ${xact} is still committing`,
    );
}
