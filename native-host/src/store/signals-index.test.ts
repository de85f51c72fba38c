import { afterEach, expect, test } from "vitest";
import { Store } from "./store.js";

let store: Store;
afterEach(() => store?.close());

// Each signal writes a page of every index on signals to the WAL (migration 0015, issue #30): the
// table keeps only its UNIQUE (monitor_uid, key), and every read of a waitpoint's signals still
// searches it rather than scanning the table.
test("signals have one index, their unique (monitor_uid, key), and every read of a waitpoint's signals searches it", () => {
  store = Store.open(":memory:");
  const indexes = store.db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'signals' ORDER BY name")
    .all() as Array<{ name: string }>;
  expect(indexes.map((i) => i.name)).toEqual(["sqlite_autoindex_signals_1"]);

  const reads = [
    "SELECT 1 AS one FROM signals WHERE monitor_uid = ? AND key = ?",
    "SELECT * FROM signals WHERE monitor_uid = ? ORDER BY id",
    "SELECT * FROM signals WHERE monitor_uid = ? AND event_seq > ? AND status != 'progress' ORDER BY id",
    "SELECT max(received_at) AS at FROM signals WHERE monitor_uid = ?",
    "DELETE FROM monitors WHERE uid = ?", // the cascade to signals
  ];
  for (const sql of reads) {
    const params = Array.from(sql.matchAll(/\?/g), () => 1);
    const plan = (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>)
      .map((row) => row.detail)
      .join(" | ");
    expect(plan, sql).toMatch(/SEARCH signals USING (COVERING )?INDEX sqlite_autoindex_signals_1 \(monitor_uid=\?/);
    expect(plan, sql).not.toMatch(/SCAN signals/);
  }
});
