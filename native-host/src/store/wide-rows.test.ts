import Database from "better-sqlite3";
import { expect, test } from "vitest";
import { wideRows } from "./wide-rows.js";

test("wide rows are the objects better-sqlite3 gives, names and values alike, with parameters", () => {
  const db = new Database(":memory:");
  db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, n REAL, b BLOB, empty TEXT);
    INSERT INTO t VALUES (1, 'a', 1.5, x'00ff', NULL), (2, 'b', 2, NULL, NULL), (3, 'c', NULL, NULL, 'x');`);
  const sql =
    "SELECT t.*, t.id * 2 AS twice, u.name AS other FROM t LEFT JOIN t u ON u.id = t.id + 1 WHERE t.id IN (SELECT value FROM json_each(?)) ORDER BY t.id";
  const rows = wideRows<[string], Record<string, unknown>>(db, sql).all("[1,3]");
  expect(rows).toEqual(db.prepare(sql).all("[1,3]"));
  expect(rows.map((row) => Object.keys(row))).toEqual([
    ["id", "name", "n", "b", "empty", "twice", "other"],
    ["id", "name", "n", "b", "empty", "twice", "other"],
  ]);
  expect(wideRows(db, sql).all("[]")).toEqual([]);
  db.close();
});
