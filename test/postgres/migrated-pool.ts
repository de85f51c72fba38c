/**
 * A database of its own on the run's shared server, migrated, behind a pool: what the contract
 * suites (store, notify) run their engine on.
 */
import type pg from "pg";
import { createPool } from "../../native-host/src/store/pg/connection.js";
import { migratePg } from "../../native-host/src/store/pg/migrate.js";
import { sharedPostgres } from "./shared.js";

export async function migratedPool(database: string, max: number): Promise<pg.Pool> {
  return (await migratedDatabase(database, max)).pool;
}

/** The same, with the database's URL (for what opens connections of its own, such as a LISTEN). */
export async function migratedDatabase(database: string, max: number): Promise<{ pool: pg.Pool; url: string }> {
  const url = await sharedPostgres().createDatabase(database);
  const pool = createPool({ url, applicationName: `vigil/${database}`, max });
  const client = await pool.connect();
  try {
    await migratePg(client);
  } finally {
    client.release();
  }
  return { pool, url };
}
