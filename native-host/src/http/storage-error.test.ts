import Database from "better-sqlite3";
import { expect, test } from "vitest";
import { storageError } from "./server.js";

test("a read-only database answers 503 saying nothing was stored; other errors are not storage errors", () => {
  const db = new Database(":memory:");
  db.exec("CREATE TABLE t (x)");
  db.pragma("query_only = ON"); // SQLite refuses every write, as on a read-only file
  let thrown: unknown;
  try {
    db.prepare("INSERT INTO t VALUES (1)").run();
  } catch (error) {
    thrown = error;
  }
  const mapped = storageError(thrown);
  expect(mapped?.status).toBe(503);
  expect(mapped?.message).toMatch(/^Storage unavailable \(SQLITE_READONLY: .*\); nothing was stored/);
  expect(db.prepare("SELECT count(*) AS n FROM t").get()).toEqual({ n: 0 });
  expect(storageError(new Error("boom"))).toBeNull();
  expect(storageError(Object.assign(new Error("constraint"), { code: "SQLITE_CONSTRAINT_UNIQUE" }))).toBeNull();
});
