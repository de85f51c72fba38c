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

/** Every row of every table, in a stable order (what a migration must keep). */
function rowsOf(db: Database.Database): Record<string, unknown[]> {
  const tables = db
    .prepare<[], { name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    )
    .all();
  return Object.fromEntries(
    tables.map(({ name }) => [name, db.prepare(`SELECT * FROM "${name}" ORDER BY 1, 2`).all()]),
  );
}

const namesOf = (db: Database.Database, type: string) =>
  db
    .prepare<[string], { name: string }>("SELECT name FROM sqlite_master WHERE type = ? ORDER BY name")
    .all(type)
    .map((row) => row.name);

test("migrating a populated database keeps every row, index, trigger and reference; ids are then never reused", () => {
  const db = new Database(":memory:");
  db.pragma("foreign_keys = ON");
  const migrations = loadMigrations();
  migrate(
    db,
    migrations.filter((m) => m.version <= 10),
  );
  db.exec(`
    INSERT INTO sessions (id, created_at) VALUES ('s', 0), ('t', 0);
    INSERT INTO monitors (uid, session_id, id, name, kind, source, timeout_ms, created_at)
      VALUES (1, 's', 'mon-1', 'n', 'command', '{}', 1, 0), (2, 's', 'wp_000000000001', 'w', 'signal', '{}', 1, 0),
             (3, 't', 'mon-1', 'n', 'command', '{}', 1, 0);
    INSERT INTO triggers (monitor_uid, mode, next_due_at, deadline_at) VALUES (1, 'poll', 5, 10), (2, 'signal', NULL, 10);
    INSERT INTO events (monitor_uid, seq, at, text) VALUES (1, 1, 0, 'e1'), (2, 1, 0, 'ok');
    INSERT INTO checks (monitor_uid, seq, at, outcome) VALUES (1, 1, 0, 'not_met');
    INSERT INTO waitpoints (monitor_uid, id, secret_hash, quorum, fail_fast, max_signals)
      VALUES (2, 'wp_000000000001', 'h', 1, 1, 1);
    INSERT INTO signals (monitor_uid, key, status, via, received_at, event_seq) VALUES (2, 'run-42', 'ok', 'http', 0, 1);
    INSERT INTO wakes (id, session_id, monitor_uid, dedupe_key, kind, text, payload, created_at)
      VALUES (7, 's', 1, 'end:1', 'ending', 't', '{}', 0), (8, 's', 2, 'signal:2:1', 'events', 't', '{}', 0),
             (9, 't', 3, 'end:3', 'ending', 't', '{}', 0);
    UPDATE wakes SET state = 'delivered' WHERE id = 7;
  `);
  const before = rowsOf(db);
  const indexes = namesOf(db, "index");
  const triggers = namesOf(db, "trigger");

  // 0011 and 0012 rebuild tables: every row comes through them unchanged (later migrations add columns).
  expect(
    migrate(
      db,
      migrations.filter((m) => m.version <= 12),
    ),
  ).toEqual([11, 12]);
  expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
  const after = rowsOf(db);
  delete after.sqlite_sequence;
  expect(after).toEqual(before);
  expect(migrate(db, migrations)).toEqual(migrations.filter((m) => m.version > 12).map((m) => m.version));
  // 0015 drops signals_monitor (the unique (monitor_uid, key) index serves its reads); every other index stays.
  expect(namesOf(db, "index")).toEqual(expect.arrayContaining(indexes.filter((name) => name !== "signals_monitor")));
  expect(namesOf(db, "index")).not.toContain("signals_monitor");
  // 0016 adds the panel search text's triggers (0023: 8, what rows show; every other trigger stays) and the rows' text.
  const search = namesOf(db, "trigger").filter((name) => name.startsWith("monitor_search_"));
  expect(search).toHaveLength(8);
  expect(namesOf(db, "trigger")).toEqual([...triggers, ...search].sort());
  expect(db.prepare("SELECT uid, text FROM monitor_search ORDER BY uid").all()).toEqual([
    { uid: 1, text: "n mon-1        " },
    { uid: 2, text: "w wp_000000000001  wp_000000000001      " },
    { uid: 3, text: "n mon-1        " },
  ]);
  expect(db.pragma("foreign_key_check")).toEqual([]);
  expect(() => db.exec("UPDATE wakes SET state = 'ready' WHERE id = 7")).toThrow(/final/);

  // A key dedupes within its waitpoint only.
  const signal = (uid: number) =>
    db.exec(
      `INSERT INTO signals (monitor_uid, key, status, via, received_at, event_seq) VALUES (${uid}, 'run-42', 'ok', 'http', 0, 2)`,
    );
  expect(() => signal(2)).toThrow(/UNIQUE constraint failed: signals.monitor_uid, signals.key/);
  signal(1);

  // The newest wake and monitor deleted with their session: their numbers are not handed out again.
  db.exec("DELETE FROM sessions WHERE id = 't'");
  expect(db.prepare("SELECT count(*) AS n FROM wakes WHERE monitor_uid = 3").get()).toEqual({ n: 0 });
  db.exec(
    "INSERT INTO monitors (session_id, id, name, kind, source, timeout_ms, created_at) VALUES ('s', 'mon-2', 'n', 'command', '{}', 1, 0)",
  );
  const uid = (db.prepare("SELECT max(uid) AS uid FROM monitors").get() as { uid: number }).uid;
  expect(uid).toBe(4);
  db.exec(
    `INSERT INTO wakes (session_id, monitor_uid, dedupe_key, kind, text, payload, created_at) VALUES ('s', ${uid}, 'end:4', 'ending', 't', '{}', 0)`,
  );
  expect(db.prepare("SELECT max(id) AS id FROM wakes").get()).toEqual({ id: 10 });

  // Deleting a session still removes everything it owns.
  db.exec("DELETE FROM sessions WHERE id = 's'");
  for (const table of ["monitors", "triggers", "events", "checks", "waitpoints", "signals", "wakes"])
    expect(db.prepare(`SELECT count(*) AS n FROM ${table}`).get(), table).toEqual({ n: 0 });
});

test("on a fresh database too, deleting the newest wake or monitor never gives its id out again", () => {
  const { db, insert } = withMonitor();
  insert("end:1");
  db.exec("DELETE FROM wakes");
  insert("end:1-again");
  expect(db.prepare("SELECT id FROM wakes").all()).toEqual([{ id: 2 }]);
  db.exec("DELETE FROM monitors");
  db.exec(
    "INSERT INTO monitors (session_id, id, name, kind, source, timeout_ms, created_at) VALUES ('s', 'mon-2', 'n', 'command', '{}', 1, 0)",
  );
  expect(db.prepare("SELECT uid FROM monitors").all()).toEqual([{ uid: 2 }]);
});
