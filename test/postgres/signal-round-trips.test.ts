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

/** What stored a burst: the statements of each transaction, and those sent outside one; which signals were duplicates. */
type Sent = { transactions: string[][]; autocommit: string[]; duplicates?: number };

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
  const duplicates = outcomes.filter((o) => "duplicate" in o.body && o.body.duplicate === true).length;
  return {
    transactions: connections.filter((sent) => sent.some((s) => s.startsWith("vigil_waitpoints_"))),
    autocommit: autocommit.filter((s) => s.startsWith("vigil_waitpoints_")),
    ...(duplicates > 0 ? { duplicates } : {}),
  };
}

const count = async () => (await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM signals")).rows[0]?.n;

test("a batch of 4 progress reports and a batch of 256 take the same two statements, no transaction; to waitpoints read before, the write alone", async () => {
  const targets: Array<{ id: string; secret: string }> = [];
  for (let i = 0; i < 40; i++)
    targets.push(await waitpoints.create("s", { label: `m${i}`, intent: "count", max_signals: 1000 }));

  // Read, then written: the first batch to each waitpoint reads it.
  const small = await burst(targets, 4, "a");
  const large = await burst(targets, 256, "b");
  const readAndWrite = {
    transactions: [],
    autocommit: ["vigil_waitpoints_signal_targets", "vigil_waitpoints_record_signals"],
  };
  expect(small).toEqual(readAndWrite);
  expect(large).toEqual(readAndWrite);
  expect(await count()).toBe(260);
  // Read before (TargetCache): the write alone, which checks their keys itself.
  const writeAlone = { transactions: [], autocommit: ["vigil_waitpoints_record_signals"] };
  expect(await burst(targets, 256, "c")).toEqual(writeAlone);
  expect(await count()).toBe(516);
  // The same keys again: duplicates, found by the write, and nothing stored twice.
  expect(await burst(targets, 4, "a")).toEqual({ ...writeAlone, duplicates: 4 });
  expect(await count()).toBe(516);
  // Some new, some seen: the new ones stored, the others answered as duplicates.
  const mixed = await Promise.all(
    (
      [
        ["a0", 0],
        ["d0", 0],
        ["a1", 1],
        ["d1", 1],
      ] as const
    ).map(([key, i]) => {
      const t = targets[i] as { id: string; secret: string };
      return waitpoints.signalBatched({ id: t.id, secret: t.secret, status: "progress", key });
    }),
  );
  expect(mixed.map((o) => ("duplicate" in o.body ? "duplicate" : o.verdict))).toEqual([
    "duplicate",
    "accepted",
    "duplicate",
    "accepted",
  ]);
  expect(await count()).toBe(518);
});

test("a waitpoint read before that has ended since, or been removed with its session: its reports are answered so, the others stored", async () => {
  await engine.createSession({ id: "gone" });
  const open = await waitpoints.create("s", { label: "kept-open", intent: "race", max_signals: 1000 });
  const ending = await waitpoints.create("s", { label: "kept-ending", intent: "race", max_signals: 1000 });
  const removed = await waitpoints.create("gone", { label: "kept-removed", intent: "race", max_signals: 1000 });
  const all = [open, ending, removed];
  await burst(all, 3, "warm");
  // Read and kept by this daemon; then one ends and one goes with its session, not through a batch.
  await engine.control("s", ending.id, "cancel");
  await engine.deleteSession("gone");
  connections.length = 0;
  autocommit.length = 0;
  const outcomes = await Promise.all(
    [open, ending, removed, open].map((t, i) =>
      waitpoints.signalBatched({ id: t.id, secret: t.secret, status: "progress", key: `kept${i}` }),
    ),
  );
  expect(outcomes.map((o) => [o.verdict, "state" in o.body ? o.body.state : undefined])).toEqual([
    ["accepted", undefined],
    ["ended", "cancelled"],
    ["ended", "removed"],
    ["accepted", undefined],
  ]);
  // The write alone first (it stored nothing: a monitor was no longer armed), then the batch read
  // again in a transaction.
  expect(autocommit.filter((s) => s.startsWith("vigil_waitpoints_"))).toEqual(["vigil_waitpoints_record_signals"]);
  const stored = await pool.query<{ key: string }>("SELECT key FROM signals WHERE key LIKE 'kept%' ORDER BY key");
  expect(stored.rows.map((r) => r.key)).toEqual(["kept0", "kept3"]);
  // Forgotten: the next batch to them reads them again.
  connections.length = 0;
  autocommit.length = 0;
  const again = await waitpoints.signalBatched({ id: open.id, secret: open.secret, status: "progress", key: "kept4" });
  expect(again.verdict).toBe("accepted");
  expect(autocommit.filter((s) => s.startsWith("vigil_waitpoints_"))).toEqual([
    "vigil_waitpoints_signal_targets",
    "vigil_waitpoints_record_signals",
  ]);
});

test("a refusal on a kept read is asked again after a read: a wrong secret, and to a waitpoint since removed, unknown; a stored key resent past the budget is a duplicate; a duplicate found by the write gives back its token", async () => {
  await engine.createSession({ id: "gone2" });
  const wp = await waitpoints.create("s", { label: "kept-secret", intent: "guard", max_signals: 1000 });
  const removed = await waitpoints.create("gone2", { label: "kept-gone", intent: "guard", max_signals: 1000 });
  await burst([wp, removed], 2, "first");
  connections.length = 0;
  autocommit.length = 0;
  const wrong = await waitpoints.signalBatched({ id: wp.id, secret: "x".repeat(43), status: "progress", key: "w" });
  expect(wrong.verdict).toBe("wrong_secret");
  // The write stored nothing (no report accepted); the read asked again answers it.
  expect(autocommit.filter((s) => s.startsWith("vigil_waitpoints_"))).toEqual(["vigil_waitpoints_signal_targets"]);
  await engine.deleteSession("gone2");
  const gone = await waitpoints.signalBatched({ id: removed.id, secret: "x".repeat(43), status: "progress" });
  expect(gone.verdict).toBe("unknown");

  // A daemon with a budget of 4 at once: one report stored, then its key three times more, each
  // its own batch to the kept waitpoint (the write finds the key, the token goes back), then
  // three new keys: all stored, as after a read that had found the duplicates. The budget spent, a
  // new key is refused, and a stored key sent again is its duplicate (asked again after a read).
  const limited = await wireServices({
    store: new PgEngine(pool, new VaultFile(null)),
    log: silentLogger,
    settings: { ...DEFAULT_SETTINGS, waitpointSignalsPerMinute: 8 },
  });
  try {
    await limited.delivery.stop();
    const budgeted = await limited.waitpoints.create("s", { label: "kept-budget", intent: "count", max_signals: 100 });
    const send = (key: string) =>
      limited.waitpoints.signalBatched({ id: budgeted.id, secret: budgeted.secret, status: "progress", key });
    expect((await send("b0")).verdict).toBe("accepted");
    for (let i = 0; i < 3; i++) expect((await send("b0")).body).toMatchObject({ accepted: true, duplicate: true });
    const fresh = await Promise.all(["b1", "b2", "b3"].map(send));
    expect(fresh.map((o) => o.verdict)).toEqual(["accepted", "accepted", "accepted"]);
    expect((await send("b4")).verdict).toBe("too_many_signals");
    expect((await send("b2")).body).toMatchObject({ accepted: true, duplicate: true });
  } finally {
    await limited.engine.stop();
  }
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
