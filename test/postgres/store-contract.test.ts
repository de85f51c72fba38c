/**
 * The store's contract (test/helpers/store-contract.ts) on PostgreSQL: `PgEngine` on the
 * run's shared server, one database for this file, emptied before each test. The same suite runs
 * on SQLite in native-host/src/store/store-contract.test.ts.
 */
import type pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { createPool } from "../../native-host/src/store/pg/connection.js";
import { migratePg } from "../../native-host/src/store/pg/migrate.js";
import { PgEngine } from "../../native-host/src/store/pg/store.js";
import { VaultFile } from "../../native-host/src/store/vault-file.js";
import { storeContract } from "../helpers/store-contract.js";
import { sharedPostgres } from "./shared.js";

let pool: pg.Pool;

beforeAll(async () => {
  const url = await sharedPostgres().createDatabase("vigil_contract");
  // 24 connections: the concurrency tests run 20 transactions at once, each on its own.
  pool = createPool({ url, applicationName: "vigil/contract", max: 24 });
  const client = await pool.connect();
  try {
    await migratePg(client);
  } finally {
    client.release();
  }
});

afterAll(async () => {
  await pool?.end();
});

storeContract({
  async fresh() {
    await pool.query(
      "TRUNCATE sessions, waitpoint_tombstones, devices, vault_audit, monitors, wakes, signals, inbound_events RESTART IDENTITY CASCADE",
    );
    // The vault's values stay in memory here (a fresh one per test), as on SQLite's :memory:.
    return new PgEngine(pool, new VaultFile(null), { checkScope: true });
  },
  async count(sql, ...params) {
    const { rows } = await pool.query<{ n: number }>(sql, params);
    return rows[0]?.n ?? 0;
  },
});
