/**
 * A group-committed batch of signals on PostgreSQL costs the same few statements whatever its size
 * (#41): a batch of progress reports is its waitpoints and keys already seen in one read, and its
 * reports in one multi-row write that is all or nothing — two named statements, prepared once per
 * connection, and no BEGIN or COMMIT; a batch where a signal may settle runs in one transaction.
 * Counted on the pool and its connections under the real Waitpoints service and PostgreSQL engine.
 * The batch reads its waitpoints without locks; one that ends before the write is answered as ended.
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
/** The statements sent on the pool outside any transaction (`pool.query`: each its own commit). */
const autocommit: string[] = [];
/** Run before a statement of this name is sent on a connection (once), e.g. to end a waitpoint meanwhile. */
let before: { name: string; run: () => Promise<void> } | undefined;

/** Runs the hook waiting for a statement of this name, if one is (once). */
async function hookFor(name: string): Promise<void> {
  const hook = before;
  if (hook !== undefined && hook.name === name) {
    before = undefined;
    await hook.run();
  }
}

/**
 * `pool`, with each statement sent on a connection it hands out recorded in `connections`, and each
 * sent on the pool itself in `autocommit`.
 */
function recording(pool: pg.Pool): pg.Pool {
  const label = (config: unknown) =>
    typeof config === "string" ? config : ((config as pg.QueryConfig).name ?? (config as pg.QueryConfig).text);
  return new Proxy(pool, {
    get(target, prop) {
      if (prop === "query")
        return async (config: unknown, ...rest: unknown[]) => {
          autocommit.push(label(config));
          await hookFor(label(config));
          return (target.query as (...args: unknown[]) => unknown).call(target, config, ...rest);
        };
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
              await hookFor(label(config));
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

/** What stored a burst: the statements of each transaction, and those sent outside one. */
type Sent = { transactions: string[][]; autocommit: string[] };

/** `n` signals (`status`) to `targets` round robin, submitted together: the statements that stored them. */
async function burst(
  targets: Array<{ id: string; secret: string }>,
  n: number,
  tag: string,
  status: "progress" | "ok" = "progress",
): Promise<Sent> {
  connections.length = 0;
  autocommit.length = 0;
  const outcomes = await Promise.all(
    Array.from({ length: n }, (_, i) => {
      const t = targets[i % targets.length] as { id: string; secret: string };
      return waitpoints.signalBatched({ id: t.id, secret: t.secret, status, key: `${tag}${i}` });
    }),
  );
  expect(outcomes.map((o) => o.verdict)).toEqual(Array(n).fill("accepted"));
  return {
    transactions: connections.filter((sent) => sent.some((s) => s.startsWith("vigil_waitpoints_"))),
    autocommit: autocommit.filter((s) => s.startsWith("vigil_waitpoints_")),
  };
}

const count = async () => (await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM signals")).rows[0]?.n;

test("a batch of 4 progress reports and a batch of 256 take the same two statements, no transaction", async () => {
  const targets = [];
  for (let i = 0; i < 40; i++)
    targets.push(await waitpoints.create("s", { label: `m${i}`, intent: "count", max_signals: 1000 }));

  const small = await burst(targets, 4, "a");
  const large = await burst(targets, 256, "b");
  const oneBatch = {
    transactions: [],
    autocommit: ["vigil_waitpoints_signal_targets", "vigil_waitpoints_record_signals"],
  };
  expect(small).toEqual(oneBatch);
  expect(large).toEqual(oneBatch);
  expect(await count()).toBe(260);
  // The same keys again: duplicates, found by the batch's one read, and nothing stored twice.
  const again = await burst(targets, 4, "a");
  expect(again).toEqual({ transactions: [], autocommit: ["vigil_waitpoints_signal_targets"] });
  expect(await count()).toBe(260);
});

test("a batch where a signal may settle its waitpoint (ok, or a heartbeat with a stall timeout) runs in one transaction", async () => {
  const stalls = [];
  for (let i = 0; i < 2; i++)
    stalls.push(
      await waitpoints.create("s", {
        label: `hb${i}`,
        intent: "beat",
        max_signals: 1000,
        heartbeat_timeout_seconds: 3600,
      }),
    );
  const stored = await count();
  // Progress to waitpoints that stall: the read finds the heartbeat timeouts, and the batch runs in
  // a transaction on that read, with those waitpoints read again locked.
  const beats = await burst(stalls, 4, "hb");
  expect(beats.autocommit).toEqual(["vigil_waitpoints_signal_targets"]);
  expect(beats.transactions).toHaveLength(1);
  const [tx] = beats.transactions as [string[]];
  expect(tx[0]).toBe("BEGIN");
  expect(tx.at(-1)).toBe("COMMIT");
  // The read outside is kept; the transaction locks the waitpoints, then reads their keys again.
  expect(tx.slice(1, 3)).toEqual(["vigil_waitpoints_targets", "vigil_waitpoints_signal_targets"]);
  // An ok to each of two other waitpoints: straight to the transaction, no read outside it.
  const done = [];
  for (let i = 0; i < 2; i++) done.push(await waitpoints.create("s", { label: `ok${i}`, intent: "end" }));
  const oks = await burst(done, 2, "ok", "ok");
  expect(oks.autocommit).toEqual([]);
  expect(oks.transactions).toHaveLength(1);
  expect(oks.transactions[0]?.[0]).toBe("BEGIN");
  expect(await count()).toBe((stored ?? 0) + 6);
});

test("a waitpoint that ends between the batch's unlocked read and its write: its signals are answered ended, the others stored", async () => {
  const open = await waitpoints.create("s", { label: "open", intent: "race", max_signals: 1000 });
  const ending = await waitpoints.create("s", { label: "ending", intent: "race", max_signals: 1000 });
  // After the batch read both (unlocked), and before it writes, the owner stops one.
  before = {
    name: "vigil_waitpoints_record_signals",
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

test("a signal alone whose waitpoint ends, or whose key is stored, between its read and its write is answered as such, not as an error", async () => {
  const ending = await waitpoints.create("s", { label: "alone-ending", intent: "race", max_signals: 1000 });
  before = {
    name: "vigil_waitpoints_record_signals",
    run: async () => void (await engine.control("s", ending.id, "cancel")),
  };
  const ended = await waitpoints.signalBatched({ id: ending.id, secret: ending.secret, status: "progress", key: "a1" });
  expect(before).toBeUndefined();
  expect(ended).toMatchObject({ verdict: "ended", body: { state: "cancelled" } });

  // The same key stored meanwhile (another daemon, say): this signal is its duplicate, stored once.
  const open = await waitpoints.create("s", { label: "alone-open", intent: "race", max_signals: 1000 });
  const signal = { id: open.id, secret: open.secret, status: "progress" as const, key: "same" };
  before = {
    name: "vigil_waitpoints_record_signals",
    run: async () => void expect((await waitpoints.signal(signal, "http")).verdict).toBe("accepted"),
  };
  const again = await waitpoints.signalBatched(signal);
  expect(before).toBeUndefined();
  expect(again).toMatchObject({ verdict: "accepted", body: { duplicate: true } });
  const stored = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM signals WHERE key = 'same'");
  expect(stored.rows[0]?.n).toBe(1);
});
