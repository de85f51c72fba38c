/**
 * The store's contract (test/helpers/store-contract.ts) on SQLite: today's synchronous Store through
 * `SqliteEngine`, an in-memory database per test. The same suite runs on PostgreSQL in
 * test/postgres/store-contract.test.ts.
 */
import { afterEach } from "vitest";
import { storeContract } from "../../../test/helpers/store-contract.js";
import { SqliteEngine } from "./engine.js";
import { Store } from "./store.js";

let engine: SqliteEngine | null = null;
afterEach(async () => {
  await engine?.close();
  engine = null;
});

storeContract({
  async fresh() {
    engine = new SqliteEngine(Store.open(":memory:"), { checkScope: true });
    return engine;
  },
  async count(sql, ...params) {
    if (!engine) throw new Error("Expected a store to be open");
    const row = engine.store.db.prepare(sql.replace(/\$\d+/g, "?")).get(...params) as { n: number };
    return row.n;
  },
});
