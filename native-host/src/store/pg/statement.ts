/**
 * Plain SQL for the PostgreSQL tables (team mode, #27): each statement is named, so every pooled
 * connection prepares it once (on its first use) and then only binds `$n` parameters — what
 * better-sqlite3's `db.prepare` gives the SQLite tables.
 * Design: docs/design.md §9 (team mode; the plan: docs/team-mode-plan.md).
 */
import type pg from "pg";

/** Where a table runs its statements: the pool outside a transaction, the transaction's client inside. */
export interface Queryable {
  query<R extends pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>>;
}

export interface Statement {
  readonly name: string;
  readonly text: string;
}

const names = new Map<string, string>();

/** A named statement; one name is one text for the whole process (PostgreSQL prepares it per connection). */
export function statement(name: string, text: string): Statement {
  const full = `vigil_${name}`;
  const known = names.get(full);
  if (known !== undefined && known !== text) throw new Error(`Expected statement ${full} to have one text, got two`);
  names.set(full, text);
  return { name: full, text };
}

export async function all<R extends pg.QueryResultRow>(
  db: Queryable,
  sql: Statement,
  values: unknown[] = [],
): Promise<R[]> {
  return (await db.query<R>({ name: sql.name, text: sql.text, values })).rows;
}

export async function one<R extends pg.QueryResultRow>(
  db: Queryable,
  sql: Statement,
  values: unknown[] = [],
): Promise<R | undefined> {
  return (await all<R>(db, sql, values))[0];
}

/** Runs a statement; how many rows it changed (better-sqlite3's `.changes`). */
export async function run(db: Queryable, sql: Statement, values: unknown[] = []): Promise<number> {
  return (await db.query({ name: sql.name, text: sql.text, values })).rowCount ?? 0;
}
