/**
 * The notify tables' contract (test/helpers/notify-contract.ts) on SQLite; the same suite runs on
 * PostgreSQL in test/postgres/notify-contract.test.ts.
 */
import { afterEach } from "vitest";
import { notifyContract } from "../../../test/helpers/notify-contract.js";
import { SqliteEngine } from "./engine.js";
import { Store } from "./store.js";

let engine: SqliteEngine | null = null;
afterEach(async () => {
  await engine?.close();
  engine = null;
});

notifyContract({
  async fresh() {
    engine = new SqliteEngine(Store.open(":memory:"), { checkScope: true });
    return engine;
  },
});
