/**
 * The notify tables' contract (test/helpers/notify-contract.ts) on PostgreSQL: `PgEngine` on the
 * run's shared server, one database for this file, emptied before each test.
 */
import type pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { PgEngine } from "../../native-host/src/store/pg/store.js";
import { VaultFile } from "../../native-host/src/store/vault-file.js";
import { notifyContract } from "../helpers/notify-contract.js";
import { migratedPool } from "./migrated-pool.js";

let pool: pg.Pool;

beforeAll(async () => {
  pool = await migratedPool("vigil_notify_contract", 12);
});

afterAll(async () => {
  await pool?.end();
});

notifyContract({
  async fresh() {
    await pool.query("TRUNCATE notify_outbox, notify_channels");
    return new PgEngine(pool, new VaultFile(null), { checkScope: true });
  },
});
