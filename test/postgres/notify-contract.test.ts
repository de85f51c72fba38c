/**
 * The notify tables' contract (test/helpers/notify-contract.ts) on PostgreSQL: `PgEngine` on the
 * run's shared server, one database for this file, emptied before each test.
 */
import type pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { createPool } from "../../native-host/src/store/pg/connection.js";
import { migratePg } from "../../native-host/src/store/pg/migrate.js";
import { PgEngine } from "../../native-host/src/store/pg/store.js";
import { VaultFile } from "../../native-host/src/store/vault-file.js";
import { notifyContract } from "../helpers/notify-contract.js";
import { sharedPostgres } from "./shared.js";

let pool: pg.Pool;

beforeAll(async () => {
  const url = await sharedPostgres().createDatabase("vigil_notify_contract");
  pool = createPool({ url, applicationName: "vigil/notify-contract", max: 12 });
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

notifyContract({
  async fresh() {
    await pool.query("TRUNCATE notify_outbox, notify_channels");
    return new PgEngine(pool, new VaultFile(null), { checkScope: true });
  },
});
