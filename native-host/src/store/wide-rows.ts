/**
 * Reading many wide rows at once (a page of the side panel): better-sqlite3 builds each row object
 * one property at a time in C++, which for a 30-column row costs twice what reading the row as an
 * array and naming its values here does (bench/panel.js; issue #26). Same objects, same names.
 * Design: docs/design.md §10.
 */
import type { Statement } from "better-sqlite3";
import type { Db } from "./db.js";

export interface WideRows<P extends unknown[], Row> {
  all(...params: P): Row[];
}

/** A statement whose rows come back as objects keyed by column name, built from arrays. */
export function wideRows<P extends unknown[], Row>(db: Db, sql: string): WideRows<P, Row> {
  const statement = (db.prepare(sql) as Statement<P, unknown[]>).raw(true);
  const names = statement.columns().map((column) => column.name);
  const named = (values: unknown[]): Row => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) row[names[i] as string] = values[i];
    return row as Row;
  };
  return { all: (...params: P) => statement.all(...params).map(named) };
}
