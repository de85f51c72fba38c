import Database from "better-sqlite3";
import { expect, test } from "vitest";
import { loadMigrations, migrate } from "./db.js";

const schemaOf = (db: Database.Database) => db.prepare("SELECT type, name, sql FROM sqlite_master ORDER BY name").all();

test("migrations apply once, in order, and a second run changes nothing", () => {
  const db = new Database(":memory:");
  const migrations = loadMigrations();
  expect(migrations.map((m) => m.version)).toEqual(migrations.map((_, i) => i + 1));
  expect(migrate(db)).toEqual(migrations.map((m) => m.version));
  const before = schemaOf(db);
  expect(migrate(db)).toEqual([]);
  expect(schemaOf(db)).toEqual(before);
  expect(db.pragma("user_version", { simple: true })).toBe(migrations.length);
});

function withMonitor() {
  const db = new Database(":memory:");
  migrate(db);
  db.exec("INSERT INTO sessions (id, created_at) VALUES ('s', 0)");
  db.exec(
    "INSERT INTO monitors (session_id, id, name, kind, source, timeout_ms, created_at) VALUES ('s', 'mon-1', 'n', 'command', '{}', 1, 0)",
  );
  const insert = (key: string, kind = "ending") =>
    db.exec(
      `INSERT INTO wakes (session_id, monitor_uid, dedupe_key, kind, text, payload, created_at) VALUES ('s', 1, '${key}', '${kind}', 't', '{}', 0)`,
    );
  return { db, insert };
}

test("a one-shot monitor cannot get two ending wakes: the schema refuses, whatever the key", () => {
  const { insert } = withMonitor();
  insert("end:1");
  expect(() => insert("end:1")).toThrow(/UNIQUE constraint failed/);
  expect(() => insert("end:1-again")).toThrow(/UNIQUE constraint failed: wakes.monitor_uid/);
  insert("events:1:3", "events"); // a watch's event wakes are not endings
});

test("a delivered wake is final: the schema refuses to send it again", () => {
  const { db, insert } = withMonitor();
  insert("end:1");
  db.exec("UPDATE wakes SET state = 'delivered'");
  expect(() => db.exec("UPDATE wakes SET state = 'delivering'")).toThrow(/a delivered or cancelled wake is final/);
  expect(() => db.exec("UPDATE wakes SET state = 'ready'")).toThrow(/final/);
});

test("a monitor state outside the table is refused by the schema", () => {
  const db = new Database(":memory:");
  migrate(db);
  db.exec("INSERT INTO sessions (id, created_at) VALUES ('s', 0)");
  expect(() =>
    db.exec(
      "INSERT INTO monitors (session_id, id, name, kind, source, timeout_ms, created_at, state) VALUES ('s', 'mon-1', 'n', 'command', '{}', 1, 0, 'bogus')",
    ),
  ).toThrow(/CHECK constraint failed/);
});
