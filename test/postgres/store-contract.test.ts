/**
 * The store's contract (test/helpers/store-contract.ts) on PostgreSQL: `PgEngine` on the
 * run's shared server, one database for this file, emptied before each test. The same suite runs
 * on SQLite in native-host/src/store/store-contract.test.ts.
 */
import type pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { PgEngine } from "../../native-host/src/store/pg/store.js";
import { VaultFile } from "../../native-host/src/store/vault-file.js";
import { storeContract } from "../helpers/store-contract.js";
import { migratedPool } from "./migrated-pool.js";

let pool: pg.Pool;

beforeAll(async () => {
  // 24 connections: the concurrency tests run 20 transactions at once, each on its own.
  pool = await migratedPool("vigil_contract", 24);
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
