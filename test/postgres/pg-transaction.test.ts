/**
 * PostgreSQL transactions (native-host/src/store/pg/transaction.ts, team mode #27): a deadlock
 * between two daemons' transactions is retried, so both commit; a failed body leaves nothing; and
 * locking the work record FOR UPDATE serializes read-then-write across connections, as SQLite's
 * BEGIN IMMEDIATE does on one machine.
 */
import type pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createPool } from "../../native-host/src/store/pg/connection.js";
import { migratePg } from "../../native-host/src/store/pg/migrate.js";
import { transaction } from "../../native-host/src/store/pg/transaction.js";
import type { TestPostgres } from "../helpers/postgres.js";
import { sharedPostgres } from "./shared.js";

let server: TestPostgres;
let pool: pg.Pool;

beforeAll(async () => {
  server = sharedPostgres();
  const url = await server.createDatabase("vigil_tx");
  pool = createPool({ url, applicationName: "vigil/test", max: 12 });
  const client = await pool.connect();
  await migratePg(client);
  client.release();
  await pool.query("INSERT INTO sessions (id, created_at) VALUES ('s', 0)");
  await pool.query(
    `INSERT INTO monitors (session_id, id, name, kind, source, timeout_ms, created_at)
     SELECT 's', 'mon-' || n, 'n', 'signal', '{}', 1, 0 FROM generate_series(1, 2) n`,
  );
});

afterAll(async () => {
  await pool?.end();
  await server?.stop();
});

test("two transactions that lock the same rows in opposite orders deadlock; the one aborted is run again, both commit", async () => {
  const retried: string[] = [];
  let arrived = 0;
  let bothHoldOne: () => void = () => undefined;
  const bothHold = new Promise<void>((resolve) => {
    bothHoldOne = resolve;
  });
  const bump = (first: number, second: number) =>
    transaction(
      pool,
      async (client) => {
        await client.query("UPDATE monitors SET event_count = event_count + 1 WHERE uid = $1", [first]);
        // Both hold their first row before either asks for its second: a certain deadlock, once.
        if (++arrived === 2) bothHoldOne();
        await bothHold;
        await client.query("UPDATE monitors SET event_count = event_count + 1 WHERE uid = $1", [second]);
        return first;
      },
      { onRetry: (error) => retried.push((error as { code: string }).code) },
    );
  expect((await Promise.all([bump(1, 2), bump(2, 1)])).sort()).toEqual([1, 2]);
  expect(retried).toEqual(["40P01"]);
  const { rows } = await pool.query<{ n: number }>("SELECT event_count AS n FROM monitors ORDER BY uid");
  expect(rows.map((row) => row.n)).toEqual([2, 2]);
});

test("a body that throws rolls back everything it wrote, and the error comes through", async () => {
  await expect(
    transaction(pool, async (client) => {
      await client.query("UPDATE monitors SET last_event = 'half' WHERE uid = 1");
      throw new Error("Expected the barrier to decide, got nothing");
    }),
  ).rejects.toThrow("Expected the barrier to decide, got nothing");
  const { rows } = await pool.query("SELECT last_event FROM monitors WHERE uid = 1");
  expect(rows[0].last_event).toBeNull();
});

test("read-then-write under FOR UPDATE: 40 concurrent increments through JS lose none", async () => {
  await pool.query("UPDATE monitors SET waked_seq = 0 WHERE uid = 1");
  const once = () =>
    transaction(pool, async (client) => {
      const { rows } = await client.query<{ seq: number }>(
        "SELECT waked_seq AS seq FROM monitors WHERE uid = 1 FOR UPDATE",
      );
      const next = (rows[0]?.seq ?? 0) + 1;
      await client.query("UPDATE monitors SET waked_seq = $1 WHERE uid = 1", [next]);
    });
  await Promise.all(Array.from({ length: 40 }, once));
  const { rows } = await pool.query<{ seq: number }>("SELECT waked_seq AS seq FROM monitors WHERE uid = 1");
  expect(rows[0]?.seq).toBe(40);
});
