/**
 * Claiming due checks on PostgreSQL (native-host/src/store/pg/claims.ts, team mode #27): three
 * daemons claiming at once take every due check exactly once; a lease that ran out (its daemon
 * died) is taken over, a live one is not.
 */
import type pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { claimDue } from "../../native-host/src/store/pg/claims.js";
import { createPool } from "../../native-host/src/store/pg/connection.js";
import { migratePg } from "../../native-host/src/store/pg/migrate.js";
import { transaction } from "../../native-host/src/store/pg/transaction.js";
import type { TestPostgres } from "../helpers/postgres.js";
import { sharedPostgres } from "./shared.js";

const CHECKS = 300;
let server: TestPostgres;
let pool: pg.Pool;

beforeAll(async () => {
  server = sharedPostgres();
  const url = await server.createDatabase("vigil_claims");
  pool = createPool({ url, applicationName: "vigil/test", max: 6 });
  const client = await pool.connect();
  await migratePg(client);
  client.release();
  await pool.query("INSERT INTO sessions (id, created_at) VALUES ('s', 0)");
  await pool.query(
    `WITH m AS (
       INSERT INTO monitors (session_id, id, name, kind, source, timeout_ms, created_at)
       SELECT 's', 'mon-' || n, 'n', 'http', '{}', 60000, 0 FROM generate_series(1, $1::int) n RETURNING uid)
     INSERT INTO triggers (monitor_uid, mode, next_due_at, deadline_at) SELECT uid, 'poll', 1000 + uid, 10000000 FROM m`,
    [CHECKS],
  );
});

afterAll(async () => {
  await pool?.end();
  await server?.stop();
});

test("three daemons claiming at once take each due check exactly once", async () => {
  const claimer = async () => {
    const mine: number[] = [];
    for (;;) {
      const batch = await transaction(pool, (client) => claimDue(client, 5000, 7, 60_000));
      if (batch.length === 0) return mine;
      mine.push(...batch.map((c) => c.uid));
    }
  };
  const taken = await Promise.all([claimer(), claimer(), claimer()]);
  const all = taken.flat();
  expect(all).toHaveLength(CHECKS);
  expect(new Set(all).size).toBe(CHECKS);
  // Each took a share: they ran side by side, not one after another.
  for (const mine of taken) expect(mine.length).toBeGreaterThan(0);
  const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM triggers WHERE lease_until = 60000");
  expect(rows[0]?.n).toBe(CHECKS);
});

test("a lease that ran out is taken over, earliest due first; one still running is not; paused monitors are never claimed", async () => {
  // Now is 60,000: every lease from the first test ends exactly now, so none has run out yet.
  expect(await transaction(pool, (client) => claimDue(client, 60_000, 10, 120_000))).toEqual([]);
  await pool.query("UPDATE monitors SET state = 'paused' WHERE uid = 1");
  const takenOver = await transaction(pool, (client) => claimDue(client, 60_001, 2, 120_000));
  expect(takenOver.map((c) => c.uid)).toEqual([2, 3]);
  expect(takenOver[0]).toEqual({ uid: 2, kind: "http", nextDueAt: 1002, leaseUntil: 120_000 });
});
