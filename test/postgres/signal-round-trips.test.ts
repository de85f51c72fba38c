/**
 * A group-committed batch of signals on PostgreSQL costs the same few statements whatever its size
 * (#41): BEGIN, the batch's waitpoints (locked) and keys already seen in two reads, its progress
 * reports in one multi-row write, COMMIT — each a named statement, prepared once per connection.
 * Counted on the pool's connections under the real Waitpoints service and PostgreSQL engine. The
 * batch reads its waitpoints without locks; one that ends before the write is answered as ended.
 */
import type pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { DEFAULT_SETTINGS } from "../../native-host/src/base/config.js";
import { silentLogger } from "../../native-host/src/base/log.js";
import type { Waitpoints } from "../../native-host/src/core/waitpoints.js";
import { wireServices } from "../../native-host/src/daemon.js";
import type { Engine } from "../../native-host/src/engine/engine.js";
import { PgEngine } from "../../native-host/src/store/pg/store.js";
import { VaultFile } from "../../native-host/src/store/vault-file.js";
import { migratedPool } from "./migrated-pool.js";

let pool: pg.Pool;
let engine: Engine;
let waitpoints: Waitpoints;
/** Each connection handed out, with the statements sent on it (a named one by its name). */
const connections: string[][] = [];
/** Run before a statement of this name is sent on a connection (once), e.g. to end a waitpoint meanwhile. */
let before: { name: string; run: () => Promise<void> } | undefined;

/** `pool`, with each statement sent on a connection it hands out recorded in `connections`. */
function recording(pool: pg.Pool): pg.Pool {
  const label = (config: unknown) =>
    typeof config === "string" ? config : ((config as pg.QueryConfig).name ?? (config as pg.QueryConfig).text);
  return new Proxy(pool, {
    get(target, prop) {
      if (prop !== "connect") return Reflect.get(target, prop, target);
      // pool.query connects with a callback (a statement outside any transaction): not recorded.
      return async (callback?: unknown) => {
        if (callback !== undefined) return target.connect(callback as never);
        const client = await target.connect();
        const sent: string[] = [];
        connections.push(sent);
        return new Proxy(client, {
          get(inner, key) {
            if (key !== "query") return Reflect.get(inner, key, inner);
            return async (config: unknown, ...rest: unknown[]) => {
              sent.push(label(config));
              const hook = before;
              if (hook !== undefined && hook.name === label(config)) {
                before = undefined;
                await hook.run();
              }
              return (inner.query as (...args: unknown[]) => unknown)(config, ...rest);
            };
          },
        });
      };
    },
  });
}

beforeAll(async () => {
  pool = await migratedPool("vigil_signal_round_trips", 6);
  const store = new PgEngine(recording(pool), new VaultFile(null));
  const settings = { ...DEFAULT_SETTINGS, waitpointSignalsPerMinute: 100_000 };
  const services = await wireServices({ store, log: silentLogger, settings });
  await services.delivery.stop();
  ({ engine, waitpoints } = services);
  await engine.createSession({ id: "s" });
});

afterAll(async () => {
  await engine?.stop();
  await pool?.end();
});

/** `n` progress signals to `targets` round robin, submitted together: the statements of the transactions that stored them. */
async function burst(targets: Array<{ id: string; secret: string }>, n: number, tag: string): Promise<string[][]> {
  connections.length = 0;
  const outcomes = await Promise.all(
    Array.from({ length: n }, (_, i) => {
      const t = targets[i % targets.length] as { id: string; secret: string };
      return waitpoints.signalBatched({ id: t.id, secret: t.secret, status: "progress", key: `${tag}${i}` });
    }),
  );
  expect(outcomes.map((o) => o.verdict)).toEqual(Array(n).fill("accepted"));
  return connections.filter((sent) => sent.some((s) => s.startsWith("vigil_waitpoints_")));
}

test("a batch of 4 signals and a batch of 256 take the same five statements in one transaction", async () => {
  const targets = [];
  for (let i = 0; i < 40; i++)
    targets.push(await waitpoints.create("s", { label: `m${i}`, intent: "count", max_signals: 1000 }));

  const small = await burst(targets, 4, "a");
  const large = await burst(targets, 256, "b");
  const oneBatch = [
    "BEGIN",
    "vigil_waitpoints_targets_unlocked",
    "vigil_waitpoints_keys_held",
    "vigil_waitpoints_record_signals",
    "COMMIT",
  ];
  expect(small).toEqual([oneBatch]);
  expect(large).toEqual([oneBatch]);
  const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM signals");
  expect(rows[0]?.n).toBe(260);
  // The same keys again: duplicates, found by the batch's one read of keys, and nothing stored twice.
  const again = await burst(targets, 4, "a");
  expect(again).toEqual([["BEGIN", "vigil_waitpoints_targets_unlocked", "vigil_waitpoints_keys_held", "COMMIT"]]);
  expect((await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM signals")).rows[0]?.n).toBe(260);
});

test("a waitpoint that ends between the batch's unlocked read and its write: its signals are answered ended, the others stored", async () => {
  const open = await waitpoints.create("s", { label: "open", intent: "race", max_signals: 1000 });
  const ending = await waitpoints.create("s", { label: "ending", intent: "race", max_signals: 1000 });
  // After the batch read both (unlocked), and before it writes, the owner stops one.
  before = {
    name: "vigil_waitpoints_keys_held",
    run: async () => void (await engine.control("s", ending.id, "cancel")),
  };
  const outcomes = await Promise.all(
    [open, ending, open, ending].map((t, i) =>
      waitpoints.signalBatched({ id: t.id, secret: t.secret, status: "progress", key: `race${i}` }),
    ),
  );
  expect(before).toBeUndefined();
  expect(outcomes.map((o) => o.verdict)).toEqual(["accepted", "ended", "accepted", "ended"]);
  const stored = await pool.query<{ key: string }>("SELECT key FROM signals WHERE key LIKE 'race%' ORDER BY key");
  expect(stored.rows.map((r) => r.key)).toEqual(["race0", "race2"]);
});
