/**
 * The store's contract (team mode, #27; docs/team-mode-plan.md §2.2): the same behavioural tests
 * run against both engines — SQLite through `SqliteEngine` (native-host/src/store/store-contract.test.ts, unit project)
 * and PostgreSQL through `PgEngine` (test/postgres/store-contract.test.ts). A table ported to
 * PostgreSQL is done when its part of this suite passes on both.
 * Includes the concurrency tests of plan §4.3: read-then-write transactions run at once keep every
 * write (PostgreSQL runs them concurrently, so this holds only with the row locks of §2.3).
 * Design: docs/design.md §9 (team mode; the plan: docs/team-mode-plan.md).
 */
import { beforeEach, describe, expect, test } from "vitest";
import type { Engine } from "../../native-host/src/store/engine.js";
import { INTERRUPTED_KEY, type NewMonitor } from "../../native-host/src/store/monitors.js";
import type { ListFilter, PanelFilter } from "../../native-host/src/store/panel.js";
import { PROGRESS_KEPT, PROGRESS_TRIM_STEP } from "../../native-host/src/store/waitpoints.js";
import { type NewWake, toDeliveryView, toWakeView } from "../../native-host/src/store/wakes.js";
import type { Source } from "../../shared/schemas/sources.js";

/** What the suite needs of an engine: a fresh, empty one per test, and a row count for checks. */
export interface ContractHarness {
  /** An empty, migrated store (the previous one is no longer used). */
  fresh(): Promise<Engine>;
  /** `SELECT count(*) …` with `$n` placeholders, outside any transaction. */
  count(sql: string, ...params: unknown[]): Promise<number>;
}

const SESSION = { id: "s", label: null, root: "/r", adapter: { kind: "inbox" as const }, createdAt: 10 };
/** The host the tests' daemon is (team mode); B is another host of the same database. */
const H = "h_a";
const B = "h_b";
const SIGNAL_SOURCE: Source = { kind: "signal", members: null, quorum: 1, failFast: true, maxSignals: 1 };

function monitor(id: string, over: Partial<NewMonitor> = {}): NewMonitor {
  return {
    sessionId: "s",
    id,
    name: `name ${id}`,
    kind: "signal",
    source: SIGNAL_SOURCE,
    continuation: "go on",
    intervalMs: null,
    timeoutMs: 60_000,
    createdAt: 100,
    mode: "signal",
    nextDueAt: null,
    deadlineAt: 60_100,
    ...over,
  };
}

const poll = (id: string, nextDueAt: number, deadlineAt = 1_000_000) =>
  monitor(id, { kind: "command", mode: "poll", intervalMs: 1000, nextDueAt, deadlineAt });

/** `n` copies of `body` started together (each its own transaction). */
const together = <T>(n: number, body: (i: number) => Promise<T>) =>
  Promise.all(Array.from({ length: n }, (_, i) => body(i)));

export function storeContract(harness: ContractHarness): void {
  let store: Engine;
  beforeEach(async () => {
    store = await harness.fresh();
    await store.tables.sessions.insert(SESSION);
  });

  describe("transactions", () => {
    test("a transaction's result is returned and its writes are seen after it", async () => {
      const uid = await store.tx(async (t) => t.monitors.insert(monitor("a")));
      expect((await store.tables.monitors.byUid(uid))?.id).toBe("a");
    });

    test("a body that throws rolls back every write and the error reaches the caller", async () => {
      await expect(
        store.tx(async (t) => {
          await t.sessions.insert({ ...SESSION, id: "gone" });
          await t.monitors.insert(monitor("b"));
          throw new Error("no");
        }),
      ).rejects.toThrow("no");
      expect(await store.tables.sessions.get("gone")).toBeUndefined();
      expect(await store.tables.monitors.get("s", "b")).toBeUndefined();
    });

    test("a read outside a transaction never sees the rows of one still open (here: one that then rolls back)", async () => {
      let inserted: () => void = () => undefined;
      const insertedSeen = new Promise<void>((resolve) => {
        inserted = resolve;
      });
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const open = store.tx(async (t) => {
        await t.sessions.insert({ ...SESSION, id: "uncommitted" });
        inserted();
        await gate;
        throw new Error("rolled back");
      });
      await insertedSeen;
      const read = store.tables.sessions.get("uncommitted");
      const list = store.tables.sessions.list();
      release();
      await expect(open).rejects.toThrow("rolled back");
      expect(await read).toBeUndefined();
      expect((await list).map((row) => row.id)).toEqual(["s"]);
    });

    test("a body that calls the store's own tables, or opens a transaction, is refused with an error saying so; nothing of it stays", async () => {
      const message = /Expected a transaction's body to use only the tables it is given \(t\)/;
      await expect(
        store.tx(async (t) => {
          await t.sessions.insert({ ...SESSION, id: "inner" });
          return store.tables.sessions.get("inner");
        }),
      ).rejects.toThrow(message);
      await expect(store.tx(async () => store.tx(async (t) => t.sessions.list()))).rejects.toThrow(message);
      expect(await store.tables.sessions.get("inner")).toBeUndefined();
      // The store works on afterwards.
      await store.tx(async (t) => t.sessions.insert({ ...SESSION, id: "after" }));
      expect((await store.tables.sessions.get("after"))?.id).toBe("after");
    });

    test("a constraint broken inside a transaction rejects it, and nothing of it stays", async () => {
      await expect(
        store.tx(async (t) => {
          await t.monitors.insert(monitor("dup"));
          await t.monitors.insert(monitor("dup"));
        }),
      ).rejects.toThrow(/unique|UNIQUE/);
      expect(await store.tables.monitors.list("s")).toEqual([]);
    });
  });

  test("a trigger keeps the sandbox its check was armed with (issue #37); none is null", async () => {
    const sandbox = { mode: "workspace-write" as const, root: "/r", codex: "/usr/bin/codex" };
    const uid = await store.tables.monitors.insert(monitor("boxed", { sandbox }));
    expect((await store.tables.monitors.byUid(uid))?.trigger?.sandbox).toEqual(sandbox);
    const plain = await store.tables.monitors.insert(monitor("plain"));
    expect((await store.tables.monitors.byUid(plain))?.trigger?.sandbox).toBeNull();
  });

  describe("sessions", () => {
    test("insert, get, root, list in creation order; adapter, label, busy; delete", async () => {
      const { sessions } = store.tables;
      await sessions.insert({ ...SESSION, id: "a", createdAt: 5, root: null, label: "first" });
      expect(await sessions.get("s")).toEqual({
        ...SESSION,
        webhookSecret: null,
        busyUntil: null,
        hostId: null,
        adapterSeal: null,
        sandbox: null,
      });
      expect(await sessions.root("s")).toBe("/r");
      expect(await sessions.root("a")).toBeNull();
      expect(await sessions.root("none")).toBeUndefined();
      expect((await sessions.list()).map((row) => row.id)).toEqual(["a", "s"]);
      await sessions.setAdapter("s", { kind: "mcp" }, "whsec_x");
      await sessions.setLabel("s", "named");
      await sessions.setBusy("s", 99);
      const sandbox = { agent: "codex" as const, mode: "workspace-write" as const, root: "/r" };
      await sessions.setSandbox("s", sandbox);
      expect(await sessions.get("s")).toMatchObject({
        adapter: { kind: "mcp" },
        webhookSecret: "whsec_x",
        label: "named",
        busyUntil: 99,
        sandbox,
      });
      expect(await sessions.delete("a")).toBe(true);
      expect(await sessions.delete("a")).toBe(false);
      expect(await sessions.get("a")).toBeUndefined();
    });

    test("turn and monitor numbers count up per session; a missing session is an error that says so", async () => {
      const { sessions } = store.tables;
      expect([await sessions.nextTurn("s"), await sessions.nextTurn("s")]).toEqual([1, 2]);
      expect([await sessions.nextMonitorSeq("s"), await sessions.nextMonitorSeq("s")]).toEqual([1, 2]);
      await expect(sessions.nextTurn("none")).rejects.toThrow("Expected session none to exist");
      await expect(sessions.nextMonitorSeq("none")).rejects.toThrow("Expected session none to exist");
      expect(await sessions.lockForUpdate("none")).toBe(false);
    });

    test("deleting a session removes its monitors, triggers, waitpoints, signals and events", async () => {
      const uid = await store.tables.monitors.insert(monitor("a"));
      await store.tables.waitpoints.insert(waitpoint(uid, "wp_a"));
      await store.tables.events.append(uid, "e", 1);
      await store.tables.waitpoints.insertSignal(signal(uid, "ok", 1));
      await store.tables.sessions.delete("s");
      for (const table of ["monitors", "triggers", "waitpoints", "signals", "events"]) {
        expect(await harness.count(`SELECT count(*) AS n FROM ${table}`)).toBe(0);
      }
    });

    test("20 concurrent 'lock the session, read, write +1' transactions keep all 20 writes", async () => {
      await store.tables.sessions.setBusy("s", 0);
      await together(20, () =>
        store.tx(async (t) => {
          expect(await t.sessions.lockForUpdate("s")).toBe(true);
          const busy = (await t.sessions.get("s"))?.busyUntil ?? 0;
          await t.sessions.setBusy("s", busy + 1);
        }),
      );
      expect((await store.tables.sessions.get("s"))?.busyUntil).toBe(20);
    });
  });

  describe("monitors", () => {
    test("insert returns the uid; get, byUid, byUids (in the order asked, missing left out), list", async () => {
      const { monitors } = store.tables;
      const a = await monitors.insert(monitor("a"));
      const b = await monitors.insert(poll("b", 500));
      expect(b).toBeGreaterThan(a);
      const record = await monitors.get("s", "a");
      expect(record).toMatchObject({
        uid: a,
        sessionId: "s",
        id: "a",
        kind: "signal",
        source: SIGNAL_SOURCE,
        continuation: "go on",
        state: "waiting",
        eventCount: 0,
        wakedSeq: 0,
        lastObservation: null,
        endingReason: null,
        cleared: false,
        trigger: {
          mode: "signal",
          nextDueAt: null,
          deadlineAt: 60_100,
          leaseUntil: null,
          polls: 0,
          unrunnableStreak: 0,
          conditionState: {},
        },
      });
      expect(await monitors.byUid(a)).toEqual(record);
      expect(await monitors.byUid(9999)).toBeUndefined();
      expect((await monitors.byUids([b, 9999, a])).map((m) => m.id)).toEqual(["b", "a"]);
      expect(await monitors.byUids([])).toEqual([]);
      expect((await monitors.list("s")).map((m) => m.id)).toEqual(["a", "b"]);
      expect(await monitors.countActive("s", ["command", "watch"])).toBe(1);
      expect(await monitors.countActive("s", [])).toBe(0);
      expect((await monitors.armedOfMode("poll", H)).map((m) => m.id)).toEqual(["b"]);
    });

    test("due, lease, countDue and nextTimes: a leased monitor is not due again until its lease runs out", async () => {
      const { monitors } = store.tables;
      const early = await monitors.insert(poll("early", 100, 5000));
      const late = await monitors.insert(poll("late", 300, 4000));
      await monitors.insert(poll("future", 900));
      expect(await monitors.countPolled()).toBe(3);
      expect((await monitors.due(300, 10, H)).map((m) => m.id)).toEqual(["early", "late"]);
      expect((await monitors.due(300, 1, H)).map((m) => m.id)).toEqual(["early"]);
      expect(await monitors.countDue(300, H)).toBe(2);
      expect(await monitors.nextTimes(H)).toEqual({ due: 100, deadline: 4000 });
      expect(await monitors.lease(early, 1000, H, 0)).toBe(true);
      expect(await monitors.lease(early, 2000, H, 0)).toBe(false);
      expect((await monitors.due(300, 10, H)).map((m) => m.id)).toEqual(["late"]);
      expect(await monitors.countDue(1001, H)).toBe(3);
      expect((await monitors.nextTimes(H)).due).toBe(300);
      expect(await monitors.setState(late, "waiting", "paused")).toBe(true);
      expect(await monitors.setState(late, "waiting", "paused")).toBe(false);
      expect((await monitors.due(300, 10, H)).map((m) => m.id)).toEqual([]);
      await monitors.setNextDue(late, null);
      expect(await monitors.countPolled()).toBe(2);
      expect((await monitors.expired(4500)).map((m) => m.id)).toEqual(["late"]);
    });

    test("recordCheck: an observation or an error, the trigger moved on and its lease ended", async () => {
      const { monitors } = store.tables;
      const uid = await monitors.insert(poll("p", 100));
      await monitors.lease(uid, 500, H, 0);
      await monitors.recordCheck(uid, {
        at: 200,
        nextDueAt: 1200,
        observation: { exitCode: 0 },
        unrunnableStreak: 0,
        conditionState: { d: "x" },
      });
      expect(await monitors.byUid(uid)).toMatchObject({
        lastObservation: { exitCode: 0 },
        lastCheckAt: 200,
        lastError: null,
        trigger: { nextDueAt: 1200, leaseUntil: null, polls: 1, conditionState: { d: "x" } },
      });
      await monitors.recordCheck(uid, {
        at: 300,
        nextDueAt: 1300,
        error: "boom",
        unrunnableStreak: 2,
        conditionState: { d: "y" },
      });
      expect(await monitors.byUid(uid)).toMatchObject({
        lastObservation: { exitCode: 0 },
        lastError: "boom",
        errorCount: 1,
        trigger: { nextDueAt: 1300, polls: 2, unrunnableStreak: 2, conditionState: { d: "y" } },
      });
      // A stream (no next due time) keeps none.
      const stream = await monitors.insert(monitor("st", { kind: "watch", mode: "stream" }));
      await monitors.recordCheck(stream, { at: 1, nextDueAt: 50, unrunnableStreak: 0, conditionState: {} });
      expect((await monitors.byUid(stream))?.trigger?.nextDueAt).toBeNull();
    });

    test("interrupted leases are counted in a row, cleared by a recorded check or a lease end; clearLeases counts", async () => {
      const { monitors } = store.tables;
      const a = await monitors.insert(poll("a", 100));
      const b = await monitors.insert(poll("b", 100));
      await monitors.lease(a, 500, H, 0);
      expect(await monitors.interruptLeases(H)).toEqual([{ uid: a, interrupted: 1 }]);
      await monitors.lease(a, 500, H, 0);
      await monitors.lease(b, 500, H, 0);
      const second = await monitors.interruptLeases(H);
      expect(second.sort((x, y) => x.uid - y.uid)).toEqual([
        { uid: a, interrupted: 2 },
        { uid: b, interrupted: 1 },
      ]);
      expect((await monitors.byUid(a))?.trigger?.conditionState).toEqual({ [INTERRUPTED_KEY]: "2" });
      expect((await monitors.byUid(a))?.trigger?.leaseUntil).toBeNull();
      await monitors.recordLeaseEnd(a);
      expect((await monitors.byUid(a))?.trigger?.conditionState).toEqual({});
      await monitors.recordCheck(b, {
        at: 1,
        nextDueAt: 2,
        unrunnableStreak: 0,
        conditionState: { [INTERRUPTED_KEY]: "1", keep: "k" },
      });
      expect((await monitors.byUid(b))?.trigger?.conditionState).toEqual({ keep: "k" });
      await monitors.lease(a, 500, H, 0);
      await monitors.lease(b, 500, H, 0);
      expect(await monitors.clearLeases(H)).toBe(2);
      expect(await monitors.clearLeases(H)).toBe(0);
    });

    test("end happens once: the ending is recorded, the trigger removed; waked_seq only grows; markCleared; delete", async () => {
      const { monitors } = store.tables;
      const uid = await monitors.insert(monitor("e"));
      await monitors.setWakedSeq(uid, 5);
      await monitors.setWakedSeq(uid, 3);
      expect((await monitors.byUid(uid))?.wakedSeq).toBe(5);
      expect(await monitors.end(uid, "waiting", "finished", "met", "done", 700)).toBe(true);
      expect(await monitors.end(uid, "finished", "finished", "failed", null, 800)).toBe(false);
      expect(await monitors.byUid(uid)).toMatchObject({
        state: "finished",
        endingReason: "met",
        endingAt: 700,
        endingDetail: "done",
        trigger: null,
      });
      expect(await harness.count("SELECT count(*) AS n FROM triggers WHERE monitor_uid = $1", uid)).toBe(0);
      expect(await monitors.markCleared([uid], 900)).toEqual(["e"]);
      expect(await monitors.markCleared([uid], 901)).toEqual([]);
      expect((await monitors.byUid(uid))?.cleared).toBe(true);
      await monitors.delete(uid);
      expect(await monitors.byUid(uid)).toBeUndefined();
    });

    test("20 concurrent 'end this monitor' transactions: exactly one ends it", async () => {
      const uid = await store.tables.monitors.insert(monitor("race"));
      const ended = await together(20, (i) =>
        store.tx(async (t) => t.monitors.end(uid, "waiting", "finished", "met", `by ${i}`, 1000 + i)),
      );
      expect(ended.filter(Boolean)).toHaveLength(1);
    });

    test("20 concurrent 'lock the monitor, read its condition state, write +1' transactions keep all 20", async () => {
      const uid = await store.tables.monitors.insert(poll("count", 100));
      await together(20, (i) =>
        store.tx(async (t) => {
          expect(await t.monitors.lockForUpdate(uid)).toBe(true);
          const n = Number((await t.monitors.byUid(uid))?.trigger?.conditionState.n ?? 0);
          await t.monitors.recordCheck(uid, {
            at: i,
            nextDueAt: 100,
            unrunnableStreak: 0,
            conditionState: { n: String(n + 1) },
          });
        }),
      );
      const trigger = (await store.tables.monitors.byUid(uid))?.trigger;
      expect(trigger?.conditionState).toEqual({ n: "20" });
      expect(trigger?.polls).toBe(20);
    });
  });

  describe("waitpoints, signals and tombstones", () => {
    test("insert and read a waitpoint by id, by uid, by uids, and as a signal's target", async () => {
      const uid = await store.tables.monitors.insert(monitor("wp_a"));
      const other = await store.tables.monitors.insert(monitor("wp_b"));
      const { waitpoints } = store.tables;
      await waitpoints.insert(waitpoint(uid, "wp_a", { members: ["x", "y"], failFast: false, device: "gpu" }));
      await waitpoints.insert(waitpoint(other, "wp_b"));
      const row = await waitpoints.byId("wp_a");
      expect(row).toEqual({
        ...waitpoint(uid, "wp_a", { members: ["x", "y"], failFast: false, device: "gpu" }),
        stallNotifiedFor: null,
        progressDropped: 0,
      });
      expect(await waitpoints.byUid(uid)).toEqual(row);
      expect(await waitpoints.byId("wp_none")).toBeUndefined();
      expect([...(await waitpoints.byUids([uid, other, 9999])).keys()].sort()).toEqual([uid, other].sort());
      expect(await waitpoints.target("wp_a")).toEqual({ ...row, sessionId: "s", state: "waiting", endingReason: null });
      expect(await waitpoints.target("wp_none")).toBeUndefined();
      await waitpoints.setStallNotified(uid, 77);
      expect((await waitpoints.byUid(uid))?.stallNotifiedFor).toBe(77);
    });

    test("signals: in order, after a seq, terminal only, last time, per monitor; a key dedupes only within its waitpoint", async () => {
      const a = await store.tables.monitors.insert(monitor("wp_a"));
      const b = await store.tables.monitors.insert(monitor("wp_b"));
      const { waitpoints } = store.tables;
      await waitpoints.insert(waitpoint(a, "wp_a"));
      await waitpoints.insert(waitpoint(b, "wp_b"));
      expect(await waitpoints.lastSignalAt(a)).toBeNull();
      await waitpoints.insertSignal(signal(a, "progress", 1, "k1"));
      await waitpoints.insertSignal(signal(a, "ok", 2, "k2"));
      await waitpoints.insertSignal(signal(a, "fail", 3));
      await waitpoints.insertSignal(signal(b, "ok", 4, "k1"));
      await expect(waitpoints.insertSignal(signal(a, "ok", 5, "k1"))).rejects.toThrow(/unique|UNIQUE/);
      expect(await waitpoints.hasKey(a, "k1")).toBe(true);
      expect(await waitpoints.hasKey(a, "k9")).toBe(false);
      expect(await waitpoints.hasKey(b, "k2")).toBe(false);
      const all = await waitpoints.signals(a);
      expect(all.map((s) => [s.status, s.eventSeq])).toEqual([
        ["progress", 1],
        ["ok", 2],
        ["fail", 3],
      ]);
      expect(all[0]).toMatchObject({ member: "m", message: "hi", data: '{"x":1}', via: "http", receivedAt: 1001 });
      expect((await waitpoints.signalsAfter(a, 1)).map((s) => s.eventSeq)).toEqual([2, 3]);
      expect((await waitpoints.terminalSignalsAfter(a, 0)).map((s) => s.status)).toEqual(["ok", "fail"]);
      expect(await waitpoints.lastSignalAt(a)).toBe(1003);
      const of = await waitpoints.signalsOf([a, b]);
      expect([of.get(a)?.length, of.get(b)?.length]).toEqual([3, 1]);
      expect(await waitpoints.wakeCount(a)).toBe(0);
      expect(await waitpoints.wakeTimesSince(a, 0)).toEqual([]);
    });

    test("purgeable: ended at or before the time, with nothing left to deliver", async () => {
      const a = await store.tables.monitors.insert(monitor("wp_a"));
      const b = await store.tables.monitors.insert(monitor("wp_b"));
      await store.tables.waitpoints.insert(waitpoint(a, "wp_a"));
      await store.tables.waitpoints.insert(waitpoint(b, "wp_b"));
      await store.tables.monitors.end(a, "waiting", "finished", "met", null, 100);
      await store.tables.monitors.end(b, "waiting", "finished", "met", null, 300);
      expect(await store.tables.waitpoints.purgeable(200)).toEqual([a]);
    });

    test("a tombstone remembers the last secret hash of a removed id until pruned", async () => {
      const { waitpoints } = store.tables;
      expect(await waitpoints.tombstoneOf("wp_gone")).toBeUndefined();
      await waitpoints.tombstone("wp_gone", "h1", 100);
      await waitpoints.tombstone("wp_gone", "h2", 200);
      await waitpoints.tombstone("wp_old", "h3", 50);
      expect(await waitpoints.tombstoneOf("wp_gone")).toBe("h2");
      await waitpoints.pruneTombstones(200);
      expect(await waitpoints.tombstoneOf("wp_gone")).toBe("h2");
      expect(await waitpoints.tombstoneOf("wp_old")).toBeUndefined();
    });

    test("20 concurrent signal-like transactions (target, read waked_seq, write +1, log the event) keep all 20", async () => {
      const uid = await store.tables.monitors.insert(monitor("wp_hot"));
      await store.tables.waitpoints.insert(waitpoint(uid, "wp_hot"));
      await together(20, (i) =>
        store.tx(async (t) => {
          const target = await t.waitpoints.target("wp_hot");
          if (!target) throw new Error("Expected the waitpoint wp_hot to exist");
          const seen = (await t.monitors.byUid(target.monitorUid))?.wakedSeq ?? 0;
          const seq = await t.events.append(target.monitorUid, `signal ${i}`, i);
          await t.waitpoints.insertSignal(signal(target.monitorUid, "progress", seq, `key-${i}`));
          await t.monitors.setWakedSeq(target.monitorUid, seen + 1);
        }),
      );
      const after = await store.tables.monitors.byUid(uid);
      expect(after?.wakedSeq).toBe(20);
      expect(after?.eventCount).toBe(20);
      expect(await store.tables.waitpoints.signals(uid)).toHaveLength(20);
    });
  });

  describe("wakes", () => {
    test("insert once per fire: a dedupe key or a second ending of a monitor is a no-op; reads by session, id, monitor", async () => {
      const uid = await store.tables.monitors.insert(monitor("m1"));
      const other = await store.tables.monitors.insert(monitor("m2"));
      const { wakes } = store.tables;
      const first = await wakes.insert(wake(uid, "events:1:1"));
      expect(first).toEqual(expect.any(Number));
      expect(await wakes.insert(wake(uid, "events:1:1"))).toBeNull();
      const ending = await wakes.insert(wake(uid, "end:1", "ending"));
      expect(await wakes.insert(wake(uid, "end:1-again", "ending"))).toBeNull();
      const third = await wakes.insert(wake(other, "events:2:1", "events", 500));
      if (first === null || ending === null || third === null) throw new Error("Expected three wakes");
      expect((await wakes.list("s")).map((w) => w.id)).toEqual([first, ending, third]);
      const raw = await wakes.get("s", first);
      expect(raw).toMatchObject({ monitor_id: "m1", state: "ready", attempts: 0, resends: 0, dismissed_at: null });
      expect(toWakeView(raw as NonNullable<typeof raw>)).toMatchObject({
        id: `wake-${first}`,
        monitors: ["m1"],
        payload: { wakeId: `wake-${first}`, reason: "events" },
        createdAt: new Date(100).toISOString(),
      });
      expect(await wakes.get("other", first)).toBeUndefined();
      expect((await wakes.byIds([third, first])).map((w) => w.id)).toEqual([first, third]);
      expect(await wakes.byIds([])).toEqual([]);
      expect((await wakes.latestOfMonitor(uid))?.id).toBe(ending);
      const latest = await wakes.latestOfMonitors([uid, other, 9999]);
      expect([latest.get(uid)?.id, latest.get(other)?.id, latest.has(9999)]).toEqual([ending, third, false]);
      const counts = await wakes.countsOfMonitors([uid, other], 200);
      expect([counts.get(uid), counts.get(other)]).toEqual([
        { uid, n: 2, recent: 0 },
        { uid: other, n: 1, recent: 1 },
      ]);
      expect(await wakes.readyCount("s")).toBe(3);
      expect(await store.tables.waitpoints.wakeCount(uid)).toBe(2);
      expect(await store.tables.waitpoints.wakeTimesSince(other, 0)).toEqual([500]);
      expect(await wakes.cancelReady(uid)).toEqual([first, ending]);
      expect(await wakes.readyCount("s")).toBe(1);
    });

    test("a turn: claim takes every ready wake with a lease, then delivered (final) or failed (ready again, later)", async () => {
      const uid = await store.tables.monitors.insert(monitor("m"));
      const { wakes } = store.tables;
      const a = (await wakes.insert(wake(uid, "k1"))) as number;
      const b = (await wakes.insert(wake(uid, "k2"))) as number;
      const claimed = await wakes.claim("s", 1, 5000);
      expect(claimed.map((w) => [w.id, w.state, w.attempts, w.turn, w.lease_until])).toEqual([
        [a, "delivering", 1, 1, 5000],
        [b, "delivering", 1, 1, 5000],
      ]);
      expect(await wakes.claim("s", 2, 6000)).toEqual([]);
      expect(await wakes.nextLeaseExpiry()).toBe(5000);
      expect(await wakes.markDelivered(a, 300, "hook", "out")).toBe(true);
      expect(await wakes.markDelivered(a, 301, "hook", null)).toBe(false);
      expect(await wakes.markFailed(a, 900, "late", null)).toBe(false);
      expect(toDeliveryView((await wakes.get("s", a)) as NonNullable<Awaited<ReturnType<typeof wakes.get>>>)).toEqual({
        wakeId: `wake-${a}`,
        state: "delivered",
        attempts: 1,
        nextAttemptAt: null,
        lastError: null,
        deliveredVia: "hook",
      });
      expect(await wakes.markFailed(b, 900, "exit 1", "tail")).toBe(true);
      expect(await wakes.get("s", b)).toMatchObject({
        state: "ready",
        next_attempt_at: 900,
        last_error: "exit 1",
        output: "tail",
      });
      // A pull takes only what is due; it is delivered in the same statement.
      expect(await wakes.claimDelivered("s", 3, 899, "mcp")).toEqual([]);
      expect(
        (await wakes.claimDelivered("s", 3, 900, "mcp")).map((w) => [w.id, w.state, w.attempts, w.delivered_via]),
      ).toEqual([[b, "delivered", 2, "mcp"]]);
      expect(await wakes.nextLeaseExpiry()).toBeNull();
    });

    test("review, retry, dismiss and expired leases", async () => {
      const uid = await store.tables.monitors.insert(monitor("m"));
      const { wakes } = store.tables;
      const a = (await wakes.insert(wake(uid, "k1"))) as number;
      expect(await wakes.dismiss(a, 10)).toBe(false); // ready, never tried: not the person's to dismiss
      expect(await wakes.retry(a)).toBe(false);
      expect(await wakes.markReview(a, "gone")).toBe(true);
      expect(await wakes.get("s", a)).toMatchObject({ state: "needs_review", last_error: "gone" });
      expect(await wakes.retry(a)).toBe(true);
      expect(await wakes.get("s", a)).toMatchObject({ state: "ready", attempts: 0, resends: 1, last_error: null });
      await wakes.claim("s", 1, 100);
      expect(await wakes.expireLeases(99, "lease ran out")).toEqual([]);
      expect(await wakes.expireLeases(100, "lease ran out")).toEqual([a]);
      expect(await wakes.dismiss(a, 200)).toBe(true);
      const dismissed = (await wakes.get("s", a)) as NonNullable<Awaited<ReturnType<typeof wakes.get>>>;
      expect(toDeliveryView(dismissed)).toMatchObject({ state: "cancelled", dismissedAt: new Date(200).toISOString() });
      await expect(store.tx(async (t) => t.wakes.retry(a))).resolves.toBe(false);
    });

    test("a claim's token finds what it took; its wakes are released unpushed (also after their lease ran out); a push recorded late is delivered unless retried", async () => {
      const uid = await store.tables.monitors.insert(monitor("m"));
      const { wakes } = store.tables;
      const a = (await wakes.insert(wake(uid, "k1"))) as number;
      const b = (await wakes.insert(wake(uid, "k2"))) as number;
      await wakes.claim("s", 4, 100, "token-4");
      expect((await wakes.claimedBy("s", "token-4")).map((w) => [w.id, w.turn])).toEqual([
        [a, 4],
        [b, 4],
      ]);
      expect(await wakes.claimedBy("s", "token-never")).toEqual([]);
      expect(await wakes.claimedBy("other", "token-4")).toEqual([]);
      expect(await wakes.release("s", "token-never", "lease ran out")).toEqual([]);
      expect(await wakes.release("other", "token-4", "lease ran out")).toEqual([]);
      expect(await wakes.expireLeases(100, "lease ran out")).toEqual([a, b]);
      expect(await wakes.claimedBy("s", "token-4")).toEqual([]); // no longer held: the lease called them interrupted
      // Reviewed for another cause since (retried, then given up on): not this expiry's to undo.
      await wakes.retry(b);
      await wakes.markReview(b, "a person must look");
      expect(
        (await wakes.release("s", "token-4", "lease ran out")).map((w) => [
          w.id,
          w.state,
          w.attempts,
          w.lease_until,
          w.last_error,
        ]),
      ).toEqual([[a, "ready", 0, null, null]]);
      expect(await wakes.get("s", b)).toMatchObject({ state: "needs_review", last_error: "a person must look" });

      await wakes.claim("s", 5, 200, "token-5");
      expect(await wakes.release("s", "token-5", "lease ran out")).toHaveLength(1); // in flight, never pushed
      await wakes.claim("s", 6, 300, "token-6");
      expect(await wakes.release("s", "token-5", "lease ran out")).toEqual([]); // taken since by another claim
      expect(await wakes.expireLeases(300, "lease ran out")).toEqual([a]);
      const late = { now: 400, via: "command", output: "ok" };
      expect(await wakes.markDeliveredLate(a, 5, "lease ran out", late)).toBe(false); // not its last turn
      expect(await wakes.markDeliveredLate(b, 4, "lease ran out", late)).toBe(false); // another cause
      expect(await wakes.markDeliveredLate(a, 6, "lease ran out", late)).toBe(true);
      expect(await wakes.get("s", a)).toMatchObject({ state: "delivered", delivered_via: "command", last_error: null });
      expect(await wakes.markDeliveredLate(a, 6, "lease ran out", late)).toBe(false);
      expect(await wakes.release("s", "token-6", "lease ran out")).toEqual([]); // delivered is final
      // A person retried it meanwhile: it is theirs again, not the late push's.
      await wakes.retry(b);
      await wakes.claim("s", 7, 500);
      await wakes.expireLeases(500, "lease ran out");
      await wakes.retry(b);
      expect(await wakes.markDeliveredLate(b, 7, "lease ran out", late)).toBe(false);
      expect(await wakes.get("s", b)).toMatchObject({ state: "ready", resends: 3 });
      // A pull's claim is found by its token too.
      expect((await wakes.claimDelivered("s", 8, 600, "mcp", "token-8")).map((w) => w.id)).toEqual([b]);
      expect((await wakes.claimedBy("s", "token-8")).map((w) => [w.id, w.state])).toEqual([[b, "delivered"]]);
    });

    test("pending turns: sessions of push adapters with ready wakes and no turn in flight; a busy session waits", async () => {
      const { sessions, wakes } = store.tables;
      await sessions.insert({ ...SESSION, id: "push", adapter: { kind: "mcp" } });
      await sessions.insert({ ...SESSION, id: "busy", adapter: { kind: "mcp" } });
      const m = await store.tables.monitors.insert(monitor("m"));
      const mPush = await store.tables.monitors.insert(monitor("m", { sessionId: "push" }));
      const mBusy = await store.tables.monitors.insert(monitor("m", { sessionId: "busy" }));
      await wakes.insert(wake(m, "a"));
      await wakes.insert({ ...wake(mPush, "b"), sessionId: "push" });
      await wakes.insert({ ...wake(mBusy, "c"), sessionId: "busy" });
      await sessions.setBusy("busy", 5000);
      const pending = (await wakes.pendingTurns(["mcp"], 1000, H)).sort((x, y) =>
        x.sessionId.localeCompare(y.sessionId),
      );
      expect(pending).toEqual([
        { sessionId: "busy", dueAt: 5000 },
        { sessionId: "push", dueAt: 0 },
      ]);
      expect(await wakes.turnInFlight("push")).toBe(false);
      await wakes.claim("push", 1, 9000);
      expect(await wakes.turnInFlight("push")).toBe(true);
      expect(await wakes.turnInFlight("busy")).toBe(false);
      expect(await wakes.pendingTurns(["mcp"], 6000, H)).toEqual([{ sessionId: "busy", dueAt: 0 }]);
      expect(await wakes.pendingTurns([], 6000, H)).toEqual([]);
    });

    test("20 concurrent claims of one session's ready wakes: each wake is taken once, by one claimer", async () => {
      const uid = await store.tables.monitors.insert(monitor("m"));
      for (let i = 0; i < 10; i++) await store.tables.wakes.insert(wake(uid, `k${i}`));
      const claims = await together(20, () =>
        store.tx(async (t) => {
          const turn = await t.sessions.nextTurn("s");
          return (await t.wakes.claim("s", turn, 9000)).map((w) => w.id);
        }),
      );
      const taken = claims.flat();
      expect(taken).toHaveLength(10);
      expect(new Set(taken).size).toBe(10);
      expect(claims.filter((ids) => ids.length > 0)).toHaveLength(1);
      const rows = await store.tables.wakes.list("s");
      expect(rows.every((w) => w.state === "delivering" && w.attempts === 1)).toBe(true);
    });
  });

  describe("inbound events", () => {
    test("insert returns growing ids; since reads one session's events of one type from a time on; matched; pruned after a day", async () => {
      const { inboundEvents } = store.tables;
      await store.tables.sessions.insert({ ...SESSION, id: "t" });
      const a = await inboundEvents.insert("s", "deploy", { v: 1 }, 1000);
      const b = await inboundEvents.insert("s", "deploy", undefined, 2000);
      await inboundEvents.insert("s", "build", { v: 3 }, 2000);
      await inboundEvents.insert("t", "deploy", { v: 4 }, 2000);
      expect(b).toBeGreaterThan(a);
      expect(await inboundEvents.since("s", "deploy", 1000)).toEqual([
        { id: a, sessionId: "s", type: "deploy", payload: { v: 1 }, receivedAt: 1000 },
        { id: b, sessionId: "s", type: "deploy", payload: null, receivedAt: 2000 },
      ]);
      expect((await inboundEvents.since("s", "deploy", 1001)).map((e) => e.id)).toEqual([b]);
      await inboundEvents.setMatched(a, ["m1", "m2"]);
      expect(await harness.count("SELECT count(*) AS n FROM inbound_events WHERE matched = $1", '["m1","m2"]')).toBe(1);
      const day = 24 * 3_600_000;
      expect(await inboundEvents.prune(day + 1000)).toBe(0);
      expect(await inboundEvents.prune(day + 1001)).toBe(1);
      expect(await inboundEvents.prune(day + 2001)).toBe(3);
    });
  });

  describe("devices", () => {
    const DEVICE = {
      id: "dev_0123456789abcdef",
      name: "gpu1",
      user: "me",
      host: "gpu1.lab",
      port: 2222,
      identity: "/k",
      createdAt: 5,
    };

    test("insert, byName, all by name, state and collection time by id, delete", async () => {
      const { devices } = store.tables;
      await devices.insert(DEVICE);
      await devices.insert({
        ...DEVICE,
        id: "dev_00000000000000aa",
        name: "a-box",
        user: null,
        port: null,
        identity: null,
      });
      expect(await devices.byName("gpu1")).toEqual({
        ...DEVICE,
        state: "offline",
        lastError: null,
        lastCollectedAt: null,
        filesCollected: 0,
        hostId: null,
      });
      expect((await devices.all()).map((d) => d.name)).toEqual(["a-box", "gpu1"]);
      await devices.setState(DEVICE.id, "error", "ssh: refused");
      await devices.setCollectedAt(DEVICE.id, 77);
      expect(await devices.byName("gpu1")).toMatchObject({
        state: "error",
        lastError: "ssh: refused",
        lastCollectedAt: 77,
      });
      expect(await devices.delete("gpu1")).toBe(true);
      expect(await devices.delete("gpu1")).toBe(false);
      expect(await devices.byName("gpu1")).toBeUndefined();
    });

    test("a collected name counts once, is marked removed, and forgotten 7 days after its removal", async () => {
      const { devices } = store.tables;
      const day = 24 * 3_600_000;
      await devices.insert(DEVICE);
      await store.tx(async (t) => {
        for (const name of ["old.json", "recent.json", "kept.json", "old.json"])
          await t.devices.markCollected("gpu1", name, 0);
      });
      expect((await devices.byName("gpu1"))?.filesCollected).toBe(3);
      expect(await devices.isCollected("gpu1", "old.json")).toBe(true);
      expect(await devices.isCollected("gpu1", "never.json")).toBe(false);
      await devices.markRemoved("gpu1", ["old.json", "never.json"], day);
      await devices.markRemoved("gpu1", ["recent.json"], 6 * day);
      expect(await devices.pruneCollected(8 * day)).toBe(0);
      expect(await devices.pruneCollected(8 * day + 1)).toBe(1);
      expect(await devices.isCollected("gpu1", "old.json")).toBe(false);
      expect(await devices.isCollected("gpu1", "recent.json")).toBe(true);
      await devices.delete("gpu1");
      expect(await harness.count("SELECT count(*) AS n FROM device_collected")).toBe(0);
    });

    test("a device's armed waitpoints by its id; armed device waitpoints whose device is gone are orphans", async () => {
      const { devices, monitors, waitpoints } = store.tables;
      await devices.insert(DEVICE);
      const bound = await monitors.insert(monitor("wp_bound"));
      const ended = await monitors.insert(monitor("wp_ended"));
      const unbound = await monitors.insert(monitor("wp_unbound"));
      const stale = await monitors.insert(monitor("wp_stale"));
      await waitpoints.insert({ ...waitpoint(bound, "wp_bound", { device: "gpu1" }), deviceId: DEVICE.id });
      await waitpoints.insert({ ...waitpoint(ended, "wp_ended", { device: "gpu1" }), deviceId: DEVICE.id });
      await waitpoints.insert(waitpoint(unbound, "wp_unbound", { device: "gpu1" }));
      await waitpoints.insert({ ...waitpoint(stale, "wp_stale", { device: "old" }), deviceId: "dev_ffffffffffffffff" });
      await monitors.end(ended, "waiting", "finished", "met", null, 1);
      expect(await devices.armedWaitpoints(DEVICE.id)).toEqual([bound]);
      expect((await devices.orphanedWaitpoints()).sort((a, b) => a - b)).toEqual([unbound, stale]);
    });
  });

  describe("vault", () => {
    test("values by key (in memory here), their uses newest first, at most 50 shown; never a value in list", async () => {
      const { vault } = store.tables;
      await vault.set("B_KEY", "b-value", 2000);
      await vault.set("A_KEY", "a-value", 1000);
      await vault.set("A_KEY", "a-value-2", 1500);
      expect(await vault.entries()).toEqual([
        ["A_KEY", "a-value-2"],
        ["B_KEY", "b-value"],
      ]);
      await store.tx(async (t) => {
        for (let i = 1; i <= 52; i++) await t.vault.recordUse("A_KEY", "s", `m${i}`, i % 2 ? "start" : "resume", i);
      });
      const list = await vault.list();
      expect(list.map((e) => [e.key, e.updatedAt, e.usedBy.length])).toEqual([
        ["A_KEY", new Date(1500).toISOString(), 50],
        ["B_KEY", new Date(2000).toISOString(), 0],
      ]);
      expect(list[0]?.usedBy[0]).toEqual({
        sessionId: "s",
        monitorId: "m52",
        purpose: "resume",
        at: new Date(52).toISOString(),
      });
      expect(JSON.stringify(list)).not.toContain("value");
      expect(await vault.delete("B_KEY")).toBe(true);
      expect(await vault.delete("B_KEY")).toBe(false);
      expect((await vault.entries()).map(([key]) => key)).toEqual(["A_KEY"]);
    });
  });

  describe("panel", () => {
    const NONE: PanelFilter = { sessionId: null, kind: null, device: null, q: null };

    /** s: a (command), b (waitpoint "deploy gate" on gpu, failed at 500), c (command in error since 20), x (cleared); t: d. */
    async function panelFixture() {
      const { sessions, monitors, waitpoints, checks } = store.tables;
      await sessions.setLabel("s", "Alpha Team");
      await sessions.insert({ ...SESSION, id: "t", createdAt: 20 });
      const a = await monitors.insert(poll("a", 100));
      await monitors.recordCheck(a, { at: 1, nextDueAt: 100, observation: 1, unrunnableStreak: 0, conditionState: {} });
      const b = await monitors.insert(monitor("b", { name: "deploy gate" }));
      await waitpoints.insert(waitpoint(b, "wp_b", { device: "gpu" }));
      const c = await monitors.insert(poll("c", 100));
      for (const [seq, outcome] of [
        [1, "not_met"],
        [2, "error"],
        [3, "error"],
      ] as const) {
        await checks.record(c, seq, seq * 10, outcome, null, null);
      }
      await monitors.recordCheck(c, {
        at: 30,
        nextDueAt: 100,
        error: "exit 2",
        unrunnableStreak: 0,
        conditionState: {},
      });
      const x = await monitors.insert(monitor("x"));
      await monitors.end(x, "waiting", "cancelled", "stopped", null, 5);
      await monitors.markCleared([x], 6);
      await monitors.end(b, "waiting", "finished", "failed", "no", 500);
      await monitors.insert({ ...poll("d", 100), sessionId: "t" });
      return { a, b, c };
    }

    test("a session's page under each list filter, kind, device and search (cleared monitors never shown)", async () => {
      const { a, b, c } = await panelFixture();
      const { panel } = store.tables;
      const page = async (
        session: string,
        filter: PanelFilter,
        list: ListFilter,
        needs: number[],
        offset: number,
        limit: number,
      ) =>
        panel.sessionPage(
          session,
          filter,
          list,
          needs,
          filter.q === null ? null : await panel.search(filter.q),
          offset,
          limit,
        );
      expect(await page("s", NONE, "all", [], 0, 10)).toEqual([a, b, c]);
      expect(await page("s", NONE, "all", [], 1, 1)).toEqual([b]);
      expect(await page("s", NONE, "active", [], 0, 10)).toEqual([a, c]);
      expect(await page("s", NONE, "ended", [], 0, 10)).toEqual([b]);
      expect(await page("s", NONE, "needs", [c, 9999], 0, 10)).toEqual([c]);
      expect(await page("s", { ...NONE, kind: "command" }, "all", [], 0, 10)).toEqual([a, c]);
      expect(await page("s", { ...NONE, device: "gpu" }, "all", [], 0, 10)).toEqual([b]);
      expect(await page("s", { ...NONE, q: "alpha" }, "all", [], 0, 10)).toEqual([a, b, c]);
      expect(await page("s", { ...NONE, q: "deploy" }, "all", [], 0, 10)).toEqual([b]);
      expect(await page("s", { ...NONE, q: "gpu", kind: "signal" }, "needs", [b], 0, 10)).toEqual([b]);
      expect(await page("t", NONE, "all", [], 0, 10)).toHaveLength(1);
    });

    test("a search matches what a row shows (a signal's message, the last error, the intent, ids), never the hidden command", async () => {
      const { panel, monitors, waitpoints } = store.tables;
      const command: Source = { kind: "command", command: "python3 secret_trainer.py --lr 3e-4" };
      const job = await monitors.insert({ ...poll("job", 100), name: "train", source: command });
      await monitors.recordCheck(job, {
        at: 30,
        nextDueAt: 100,
        error: "Disk Quota exceeded",
        unrunnableStreak: 0,
        conditionState: {},
      });
      const gate = await monitors.insert(
        monitor("gate", { name: "gpu run", continuation: "Then publish the Weights" }),
      );
      await waitpoints.insert(waitpoint(gate, "wp_0123abcd"));
      await waitpoints.insertSignal({ ...signal(gate, "fail", 1), message: "CUDA out of memory at step 1200" });
      const found = async (q: string) => (await panel.search(q)).sort((x, y) => x - y);
      expect(await found("cuda out of memory")).toEqual([gate]);
      expect(await found("quota exceeded")).toEqual([job]);
      expect(await found("publish the weights")).toEqual([gate]);
      expect(await found("wp_0123")).toEqual([gate]);
      expect(await found("job")).toEqual([job]);
      expect(await found("secret_trainer")).toEqual([]);
      // A later check that succeeds clears the error: it is no longer shown, nor found.
      await monitors.recordCheck(job, {
        at: 40,
        nextDueAt: 100,
        observation: 1,
        unrunnableStreak: 0,
        conditionState: {},
      });
      expect(await found("quota")).toEqual([]);
    });

    test("counts per session under the kind, device and search filters", async () => {
      const { c } = await panelFixture();
      const { panel } = store.tables;
      const counts_ = async (filter: PanelFilter, needs: number[]) =>
        panel.counts(filter, needs, filter.q === null ? null : await panel.search(filter.q));
      const counts = await counts_(NONE, [c]);
      expect(Object.fromEntries(counts)).toEqual({
        s: { all: 3, needs: 1, active: 2, ended: 1 },
        t: { all: 1, needs: 0, active: 1, ended: 0 },
      });
      expect(Object.fromEntries(await counts_({ ...NONE, kind: "signal" }, []))).toEqual({
        s: { all: 1, needs: 0, active: 0, ended: 1 },
      });
      expect(Object.fromEntries(await counts_({ ...NONE, q: "zzz", device: "gpu" }, []))).toEqual({});
    });

    test("the Needs-you rows: monitors in error (since their run of errors began), failed waitpoints, heartbeat waitpoints; wakes that need the person", async () => {
      const { a, b, c } = await panelFixture();
      const { panel, monitors, waitpoints, wakes } = store.tables;
      const h = await monitors.insert(monitor("h"));
      await waitpoints.insert({ ...waitpoint(h, "wp_h"), heartbeatTimeoutMs: 60_000 });
      await waitpoints.insertSignal(signal(h, "progress", 1));
      const rows = await panel.attentionMonitors(400);
      expect(rows.map((row) => [row.monitorId, row.errorSince, row.lastSignalAt, row.waitpointId])).toEqual([
        ["c", 20, null, null],
        ["h", null, 1001, "wp_h"],
        ["b", null, null, "wp_b"],
      ]);
      expect(rows[2]).toMatchObject({
        uid: b,
        sessionId: "s",
        kind: "signal",
        endingReason: "failed",
        endingAt: 500,
        device: "gpu",
      });
      expect((await panel.attentionMonitors(501)).map((row) => row.monitorId)).toEqual(["c", "h"]);

      const fresh = (await wakes.insert(wake(a, "w1", "events", 100))) as number;
      const review = (await wakes.insert(wake(c, "w2"))) as number;
      await wakes.markReview(review, "gone");
      const retried = (await wakes.insert(wake(b, "w3", "ending"))) as number;
      await wakes.claim("s", 1, 9000);
      await wakes.markFailed(retried, 99_999, "exit 1", null);
      await wakes.markFailed(fresh, 99_999, "exit 1", null);
      await wakes.dismiss(fresh, 1);
      const late = (await wakes.insert(wake(a, "w4", "events", 300))) as number;
      expect((await panel.attentionWakes(299)).map((row) => row.id)).toEqual([review, retried]);
      const all = await panel.attentionWakes(300);
      expect(all.map((row) => row.id)).toEqual([review, retried, late]);
      expect(all[1]).toEqual({
        id: retried,
        sessionId: "s",
        monitorUid: b,
        monitorId: "b",
        name: "deploy gate",
        kind: "signal",
        waitpointId: "wp_b",
        state: "ready",
        attempts: 1,
        lastError: "exit 1",
        nextAttemptAt: 99_999,
        createdAt: 100,
      });
    });
  });

  describe("events", () => {
    test("the log reads the newest entries oldest first, pruned in steps beyond the cap", async () => {
      const uid = await store.tables.monitors.insert(monitor("log"));
      await store.tx(async (t) => {
        for (let i = 1; i <= 300; i++) expect(await t.events.append(uid, `line ${i}`, i)).toBe(i);
      });
      const { events } = store.tables;
      const recent = await events.recent(uid);
      expect(recent).toHaveLength(200);
      expect(recent[0]).toEqual({ seq: 101, at: new Date(101).toISOString(), text: "line 101" });
      expect(recent.at(-1)?.text).toBe("line 300");
      expect((await events.recent(uid, 2)).map((e) => e.seq)).toEqual([299, 300]);
      expect((await events.since(uid, 290, 5)).map((e) => e.seq)).toEqual([296, 297, 298, 299, 300]);
      // Pruned at seq 288 (a multiple of the step) down to the last 200: 89…300 are kept.
      expect(await harness.count("SELECT count(*) AS n FROM events WHERE monitor_uid = $1", uid)).toBe(212);
      expect((await store.tables.monitors.byUid(uid))?.lastEvent).toBe("line 300");
      await expect(events.append(9999, "x", 1)).rejects.toThrow("Expected monitor 9999 to exist");
    });

    test("a recorded signal is an event in its monitor's log and a signal row naming it, pruned as any event", async () => {
      const uid = await store.tables.monitors.insert(monitor("sig"));
      await store.tables.waitpoints.insert(waitpoint(uid, "wp_sig"));
      const { eventSeq: _, ...first } = signal(uid, "progress", 1, "k-1");
      expect(await store.tx((t) => t.waitpoints.recordSignal(first, "progress: hi"))).toBe(1);
      expect(await store.tables.events.recent(uid)).toEqual([
        { seq: 1, at: new Date(1001).toISOString(), text: "progress: hi" },
      ]);
      expect(await store.tables.waitpoints.signals(uid)).toEqual([
        expect.objectContaining({ status: "progress", member: "m", message: "hi", receivedAt: 1001, eventSeq: 1 }),
      ]);
      const record = await store.tables.monitors.byUid(uid);
      expect([record?.eventCount, record?.lastEvent, record?.lastCheckAt]).toEqual([1, "progress: hi", 1001]);
      expect(await store.tables.waitpoints.hasKey(uid, "k-1")).toBe(true);
      await store.tx(async (t) => {
        for (let i = 2; i <= 300; i++) {
          const { eventSeq: __, ...next } = signal(uid, "progress", i, i === 300 ? "k-300" : null);
          expect(await t.waitpoints.recordSignal(next, `progress ${i}`)).toBe(i);
        }
      });
      expect(await harness.count("SELECT count(*) AS n FROM events WHERE monitor_uid = $1", uid)).toBe(212);
      // The last trim ran at seq 288 (a multiple of PROGRESS_TRIM_STEP): it kept the newest
      // PROGRESS_KEPT (189–288); 289–300 came since. The rest are counted.
      expect(PROGRESS_TRIM_STEP).toBe(32);
      expect(await harness.count("SELECT count(*) AS n FROM signals WHERE monitor_uid = $1", uid)).toBe(
        PROGRESS_KEPT + 12,
      );
      expect((await store.tables.waitpoints.byUid(uid))?.progressDropped).toBe(300 - PROGRESS_KEPT - 12);
      const { eventSeq: ___, ...again } = signal(uid, "ok", 301, "k-300");
      await expect(store.tx((t) => t.waitpoints.recordSignal(again, "ok"))).rejects.toThrow(/unique|UNIQUE/);
      expect((await store.tables.monitors.byUid(uid))?.eventCount).toBe(300);
      const { eventSeq: ____, ...lost } = signal(9999, "ok", 1);
      await expect(store.tx((t) => t.waitpoints.recordSignal(lost, "x"))).rejects.toThrow("Expected monitor 9999");
    });
    test("a flood of progress keeps the last 100 (and those since the last trim) and counts the rest; ok/fail signals are never let go (issue #37)", async () => {
      const uid = await store.tables.monitors.insert(monitor("flood"));
      await store.tables.waitpoints.insert(waitpoint(uid, "wp_flood", { members: ["a", "b"] }));
      const other = await store.tables.monitors.insert(monitor("other"));
      await store.tables.waitpoints.insert(waitpoint(other, "wp_other"));
      const record = (monitorUid: number, status: "ok" | "fail" | "progress", seq: number) => {
        const { eventSeq: _, ...next } = signal(monitorUid, status, seq);
        return store.tx((t) => t.waitpoints.recordSignal(next, `${status} ${seq}`));
      };
      await record(uid, "ok", 1);
      await record(other, "progress", 1);
      for (let i = 2; i <= 250; i++) await record(uid, i === 120 ? "fail" : "progress", i);
      // The last trim ran at seq 224: it kept progress 125–224 (100); 225–250 (26) came since.
      const kept = await store.tables.waitpoints.signals(uid);
      expect(kept.filter((s) => s.status === "progress")).toHaveLength(PROGRESS_KEPT + 26);
      expect(kept.filter((s) => s.status !== "progress").map((s) => [s.status, s.eventSeq])).toEqual([
        ["ok", 1],
        ["fail", 120],
      ]);
      // The newest are the ones kept.
      expect(kept.at(-1)?.eventSeq).toBe(250);
      expect(kept.find((s) => s.status === "progress")?.eventSeq).toBe(224 - PROGRESS_KEPT + 1);
      expect((await store.tables.waitpoints.byUid(uid))?.progressDropped).toBe(248 - PROGRESS_KEPT - 26);
      expect((await store.tables.waitpoints.target("wp_flood"))?.progressDropped).toBe(248 - PROGRESS_KEPT - 26);
      // Up to the next trim nothing more is let go; at seq 256 (an ok, not a progress report) exactly
      // the newest PROGRESS_KEPT progress reports stay: 156–255.
      for (let i = 251; i <= 255; i++) await record(uid, "progress", i);
      await record(uid, "ok", 256);
      const trimmed = await store.tables.waitpoints.signals(uid);
      expect(trimmed.filter((s) => s.status === "progress").map((s) => s.eventSeq)).toEqual(
        Array.from({ length: PROGRESS_KEPT }, (_, i) => 255 - PROGRESS_KEPT + 1 + i),
      );
      expect(trimmed.filter((s) => s.status !== "progress").map((s) => s.eventSeq)).toEqual([1, 120, 256]);
      expect((await store.tables.waitpoints.byUid(uid))?.progressDropped).toBe(253 - PROGRESS_KEPT);
      // Another waitpoint's signals are its own.
      expect(await store.tables.waitpoints.signals(other)).toHaveLength(1);
      expect((await store.tables.waitpoints.byUid(other))?.progressDropped).toBe(0);
    });
  });

  describe("signals committed as a batch (group commit, #41)", () => {
    test("recordSignals leaves out a row whose key a stored signal holds and gives its index; the rest are numbered as if it were not there", async () => {
      const uid = await store.tables.monitors.insert(monitor("held"));
      await store.tables.waitpoints.insert(waitpoint(uid, "wp_held"));
      const row = (key: string | null, i: number) => {
        const { eventSeq: _, ...fields } = signal(uid, "progress", i, key);
        return { signal: fields, text: `signal ${i}` };
      };
      expect(await store.tx((t) => t.waitpoints.recordSignals([row("h1", 1)]))).toEqual([]);
      const held = await store.tx((t) =>
        t.waitpoints.recordSignals([row("h2", 2), row("h1", 3), row(null, 4), row("h3", 5), row("h1", 6)]),
      );
      expect(held).toEqual([1, 4]);
      const stored = await store.tables.waitpoints.signals(uid);
      expect(stored.map((s) => [s.eventSeq, s.receivedAt])).toEqual([
        [1, 1001],
        [2, 1002],
        [3, 1004],
        [4, 1005],
      ]);
      expect((await store.tables.monitors.byUid(uid))?.eventCount).toBe(4);
      expect((await store.tables.events.recent(uid)).map((e) => e.text)).toEqual(
        expect.arrayContaining(["signal 1", "signal 2", "signal 4", "signal 5"]),
      );
      expect((await store.tables.events.recent(uid)).map((e) => e.text)).not.toContain("signal 3");
    });

    test("recordSignals in batches leaves what recordSignal one by one leaves: seqs, kept progress, dropped count, pruned log", async () => {
      const batched = await store.tables.monitors.insert(monitor("batched"));
      await store.tables.waitpoints.insert(waitpoint(batched, "wp_batched"));
      const single = await store.tables.monitors.insert(monitor("single"));
      await store.tables.waitpoints.insert(waitpoint(single, "wp_single"));
      const next = (uid: number, i: number) => {
        // Signal i is event 2i - 1 and i + 1000 event 2i: ok at 1048, 1096, … puts an ok on events
        // 96, 192, …, the seqs a trim runs at (its offset then counts no row of its own).
        const ok = i > 1000 && (i - 1000) % 48 === 0;
        const { eventSeq: _, ...row } = signal(uid, ok ? "ok" : "progress", i);
        return { signal: { ...row, key: `k${i}` }, text: `signal ${i}` };
      };
      // 260 signals to each, in batches of 40 that interleave the two waitpoints.
      for (let start = 1; start <= 260; start += 20) {
        const rows: Array<ReturnType<typeof next>> = [];
        for (let i = start; i < start + 20; i++) rows.push(next(batched, i), next(batched, i + 1000));
        await store.tx((t) => t.waitpoints.recordSignals(rows));
      }
      for (let i = 1; i <= 260; i++) {
        const one = next(single, i);
        const two = next(single, i + 1000);
        await store.tx(async (t) => {
          await t.waitpoints.recordSignal(one.signal, one.text);
          await t.waitpoints.recordSignal(two.signal, two.text);
        });
      }
      const shape = async (uid: number) => ({
        signals: (await store.tables.waitpoints.signals(uid)).map((s) => [s.status, s.eventSeq, s.message]),
        dropped: (await store.tables.waitpoints.byUid(uid))?.progressDropped,
        events: (await store.tables.events.recent(uid)).map((e) => [e.seq, e.text]),
        record: await store.tables.monitors.byUid(uid).then((m) => [m?.eventCount, m?.lastEvent]),
      });
      const want = await shape(single);
      expect(
        want.signals.filter(([status, seq]) => status === "ok" && Number(seq) % PROGRESS_TRIM_STEP === 0),
      ).toHaveLength(5);
      // 520 events each: the last trim at 512 kept the newest PROGRESS_KEPT; 513–520 came since.
      expect(want.signals.filter(([status]) => status === "progress").length).toBeGreaterThan(PROGRESS_KEPT);
      expect(want.dropped).toBeGreaterThan(0);
      expect(await shape(batched)).toEqual(want);
      // A batch's one read: the waitpoints named (an unknown id absent) and which of their keys are held (ok signals, never let go).
      const { targets, held } = await store.tables.waitpoints.signalTargets([
        { id: "wp_batched", key: "k1048" },
        { id: "wp_batched", key: "k9999" },
        { id: "wp_single", key: "k1096" },
        { id: "wp_single", key: undefined },
        { id: "wp_none", key: "k1048" },
        { id: "wp_batched", key: "k1096" },
      ]);
      expect([...held].sort()).toEqual([`${batched}:k1048`, `${batched}:k1096`, `${single}:k1096`].sort());
      expect([...targets.keys()].sort()).toEqual(["wp_batched", "wp_single"]);
      expect(targets.get("wp_batched")?.monitorUid).toBe(batched);
      const locked = await store.tx((t) => t.waitpoints.targets(["wp_batched", "wp_none", "wp_batched"]));
      expect([...locked.keys()]).toEqual(["wp_batched"]);
    });
  });

  describe("hosts (team mode)", () => {
    test("the census is one row that moves when a host joins, dies (its heartbeat ages) or stops — not at a heartbeat", async () => {
      const empty = await store.tables.hosts.census(50_000);
      await store.tables.hosts.insert({ id: "h_c1", name: "c1", version: "0.1.0", pid: 1, now: 50_000 });
      const one = await store.tables.hosts.census(50_000);
      expect(one).not.toBe(empty);
      await store.tables.hosts.heartbeat({ id: "h_c1", pid: 1, startedAt: 50_000 }, 55_000);
      expect(await store.tables.hosts.census(55_000)).toBe(one);
      const dead = await store.tables.hosts.census(55_000 + 15_000);
      expect(dead).not.toBe(one);
      await store.tables.hosts.stop({ id: "h_c1", pid: 1, startedAt: 50_000 }, 56_000);
      expect(await store.tables.hosts.census(56_000)).not.toBe(one);
      expect(await store.tables.hosts.forget("h_c1")).toBe(true);
    });
    test("a host's row: registered, restarted under the same id, heartbeat, stop; listed with what it holds", async () => {
      const { hosts, sessions, monitors } = store.tables;
      await hosts.insert({ id: H, name: "laptop", version: "1.0.0", pid: 10, now: 1000 });
      await hosts.insert({ id: B, name: "server", version: "1.0.0", pid: 20, now: 1000 });
      await expect(hosts.insert({ id: "h_c", name: "laptop", version: "1", pid: 1, now: 1 })).rejects.toThrow();
      expect(await hosts.heartbeat({ id: H, pid: 10, startedAt: 1000 }, 5000)).toBe(true);
      // Another run's heartbeat (the row was taken over since) changes nothing and says so.
      expect(await hosts.heartbeat({ id: H, pid: 11, startedAt: 1000 }, 5500)).toBe(false);
      await hosts.stop({ id: B, pid: 99, startedAt: 1000 }, 5800);
      expect((await hosts.byId(B))?.stoppedAt).toBeNull();
      await hosts.stop({ id: B, pid: 20, startedAt: 1000 }, 6000);
      expect(await hosts.heartbeat({ id: B, pid: 20, startedAt: 1000 }, 7000)).toBe(false);
      await sessions.insert({ ...SESSION, id: "on-b", hostId: B });
      await monitors.insert({ ...poll("bound", 100), sessionId: "on-b", hostId: B });
      await monitors.insert({ ...poll("free", 100), sessionId: "on-b", hostId: null });
      expect(await hosts.list()).toEqual([
        {
          id: H,
          name: "laptop",
          version: "1.0.0",
          pid: 10,
          startedAt: 1000,
          heartbeatAt: 5000,
          stoppedAt: null,
          sessions: 0,
          bound: 0,
        },
        {
          id: B,
          name: "server",
          version: "1.0.0",
          pid: 20,
          startedAt: 1000,
          heartbeatAt: 6000,
          stoppedAt: 6000,
          sessions: 1,
          bound: 1,
        },
      ]);
      await hosts.restart({ id: B, name: "server", version: "1.1.0", pid: 30, now: 9000 });
      expect(await hosts.byName("server")).toEqual({
        id: B,
        name: "server",
        version: "1.1.0",
        pid: 30,
        startedAt: 9000,
        heartbeatAt: 9000,
        stoppedAt: null,
        sessions: 0,
        bound: 0,
      });
      expect(await hosts.byName("nobody")).toBeUndefined();
      // Renamed (the machine's name changed): the same row, so its sessions stay its own.
      await hosts.restart({ id: B, name: "server-2", version: "1.1.0", pid: 31, now: 9500 });
      expect(await hosts.byName("server")).toBeUndefined();
      expect(await hosts.byId(B)).toMatchObject({ name: "server-2", pid: 31 });
      expect((await hosts.list()).find((h) => h.id === B)).toMatchObject({ name: "server-2", sessions: 1 });
    });

    test("a host is forgotten only while no session names it; its devices are left to be adopted", async () => {
      const { hosts, sessions, devices } = store.tables;
      await hosts.insert({ id: "h_old", name: "old-ci", version: "1", pid: 1, now: 1 });
      await sessions.insert({ ...SESSION, id: "on-old", hostId: "h_old" });
      await devices.insert({
        id: "dev_1",
        name: "gpu1",
        user: null,
        host: "gpu1.internal",
        port: null,
        identity: null,
        createdAt: 1,
        hostId: "h_old",
      });
      expect(await store.tx((t) => t.hosts.forget("h_old"))).toBe(false);
      expect(await hosts.byId("h_old")).toBeDefined();
      expect((await devices.byName("gpu1"))?.hostId).toBe("h_old");
      await sessions.delete("on-old");
      expect(await store.tx((t) => t.hosts.forget("h_old"))).toBe(true);
      expect(await hosts.byId("h_old")).toBeUndefined();
      expect((await devices.byName("gpu1"))?.hostId).toBeNull();
      expect(await store.tx((t) => t.hosts.forget("h_none"))).toBe(false);
    });

    test("adopt: sessions, devices and machine-bound triggers made before hosts become the host's; time stays host-free", async () => {
      const { hosts, sessions, monitors, devices } = store.tables;
      const command = await monitors.insert(poll("command", 100));
      const time = await monitors.insert({ ...poll("time", 100), kind: "time" });
      await sessions.insert({ ...SESSION, id: "theirs", hostId: B });
      const theirs = await monitors.insert({ ...poll("theirs", 100), sessionId: "theirs" });
      await devices.insert({
        id: "dev_1",
        name: "pi",
        user: null,
        host: "pi.local",
        port: null,
        identity: null,
        createdAt: 1,
      });
      expect(await hosts.adopt(H)).toBe(1);
      expect((await sessions.get("s"))?.hostId).toBe(H);
      expect((await sessions.get("theirs"))?.hostId).toBe(B);
      expect((await devices.byName("pi"))?.hostId).toBe(H);
      // Only H's due checks and the host-free ones are H's to run.
      await hosts.adopt(B);
      expect((await monitors.due(200, 10, B)).map((m) => m.uid).sort()).toEqual([theirs, time].sort());
      expect((await monitors.due(200, 10, H)).map((m) => m.uid).sort()).toEqual([command, theirs, time].sort());
    });

    test("due, nextTimes and armedOfMode: a host sees its own host-bound triggers and the host-free ones, never another's", async () => {
      const { sessions, monitors } = store.tables;
      await sessions.insert({ ...SESSION, id: "on-b", hostId: B });
      await monitors.insert({ ...poll("mine", 300), hostId: H });
      await monitors.insert({ ...poll("theirs", 100), sessionId: "on-b", hostId: B });
      await monitors.insert({ ...poll("free", 200), hostId: null });
      await monitors.insert({ ...monitor("watch-b", { kind: "watch", mode: "stream" }), sessionId: "on-b", hostId: B });
      expect((await monitors.due(1000, 10, H)).map((m) => m.id)).toEqual(["free", "mine"]);
      expect((await monitors.due(1000, 10, B)).map((m) => m.id)).toEqual(["theirs", "free"]);
      expect((await monitors.nextTimes(H)).due).toBe(200);
      expect((await monitors.nextTimes(B)).due).toBe(100);
      expect(await monitors.countDue(1000, H)).toBe(2);
      expect((await monitors.armedOfMode("stream", H)).map((m) => m.id)).toEqual([]);
      expect((await monitors.armedOfMode("stream", B)).map((m) => m.id)).toEqual(["watch-b"]);
    });

    test("a leased check is due again once its lease runs out: another host's (it died), or its own (its result was never recorded)", async () => {
      const { monitors } = store.tables;
      const free = await monitors.insert({ ...poll("free", 100), hostId: null });
      expect(await monitors.lease(free, 5000, B, 100)).toBe(true);
      // While B's lease runs, H neither takes it nor wakes for it before the lease ends.
      expect(await monitors.lease(free, 9000, H, 4000)).toBe(false);
      expect((await monitors.due(4000, 10, H)).map((m) => m.id)).toEqual([]);
      expect((await monitors.nextTimes(H)).due).toBe(5001);
      // B died: once its lease has run out, H takes the check over.
      expect((await monitors.due(5001, 10, H)).map((m) => m.id)).toEqual(["free"]);
      expect(await monitors.lease(free, 9000, H, 5001)).toBe(true);
      expect((await monitors.byUid(free))?.trigger?.leaseUntil).toBe(9000);
      expect(await monitors.lease(free, 20_000, B, 8000)).toBe(false);
      // H's own lease run out (the result could not be recorded): due again, and H takes it again.
      expect((await monitors.nextTimes(H)).due).toBe(9001);
      expect((await monitors.due(9001, 10, H)).map((m) => m.id)).toEqual(["free"]);
      expect(await monitors.lease(free, 20_000, H, 9001)).toBe(true);
    });

    test("interruptLeases and clearLeases touch only the host's own leases", async () => {
      const { monitors } = store.tables;
      const mine = await monitors.insert({ ...poll("mine", 100), hostId: null });
      const theirs = await monitors.insert({ ...poll("theirs", 100), hostId: null });
      await monitors.lease(mine, 5000, H, 100);
      await monitors.lease(theirs, 5000, B, 100);
      expect(await monitors.interruptLeases(H)).toEqual([{ uid: mine, interrupted: 1 }]);
      expect((await monitors.byUid(theirs))?.trigger?.leaseUntil).toBe(5000);
      await monitors.lease(mine, 5000, H, 100);
      expect(await monitors.clearLeases(H)).toBe(1);
      expect(await monitors.clearLeases(B)).toBe(1);
    });

    test("pending turns: a session's pushes go out from its own host only, a webhook session's too (its seal is that host's)", async () => {
      const { sessions, wakes, monitors } = store.tables;
      await sessions.insert({ ...SESSION, id: "cmd-b", adapter: { kind: "mcp" }, hostId: B });
      await sessions.insert({ ...SESSION, id: "hook-b", adapter: { kind: "mcp" }, hostId: B });
      await sessions.setAdapter("hook-b", { kind: "webhook", url: "https://example.com/hook" }, "whsec_x");
      await sessions.insert({ ...SESSION, id: "cmd-a", adapter: { kind: "mcp" }, hostId: H });
      for (const id of ["cmd-b", "hook-b", "cmd-a"]) {
        const uid = await monitors.insert(monitor("m", { sessionId: id }));
        await wakes.insert({ ...wake(uid, `k-${id}`), sessionId: id });
      }
      const on = async (host: string) =>
        (await wakes.pendingTurns(["mcp", "webhook"], 1000, host)).map((p) => p.sessionId).sort();
      expect(await on(H)).toEqual(["cmd-a"]);
      expect(await on(B)).toEqual(["cmd-b", "hook-b"]);
    });
  });

  describe("checks", () => {
    test("the check log keeps the last 100, in order; a seq recorded twice is replaced; durations are whole ms", async () => {
      const uid = await store.tables.monitors.insert(poll("c", 100));
      await store.tx(async (t) => {
        for (let seq = 1; seq <= 105; seq++) await t.checks.record(uid, seq, seq * 10, "not_met", 1.4, `run ${seq}`);
        await t.checks.record(uid, 105, 2000, "met", null, null);
      });
      const list = await store.tables.checks.list(uid);
      expect(list).toHaveLength(100);
      expect(list[0]).toEqual({
        seq: 6,
        at: new Date(60).toISOString(),
        outcome: "not_met",
        durationMs: 1,
        excerpt: "run 6",
        exitCode: null,
        output: null,
      });
      expect(list.at(-1)).toEqual({
        seq: 105,
        at: new Date(2000).toISOString(),
        outcome: "met",
        durationMs: null,
        excerpt: null,
        exitCode: null,
        output: null,
      });
    });

    test("output is kept on the latest check and the latest failing one only; the exit code on every check", async () => {
      const uid = await store.tables.monitors.insert(poll("o", 100));
      const out = (exitCode: number | null, text: string) => ({ exitCode, text });
      await store.tx(async (t) => {
        await t.checks.record(uid, 1, 10, "not_met", 5, "a", out(1, "first failure"));
        await t.checks.record(uid, 2, 20, "not_met", 5, "b", out(2, "second failure"));
        await t.checks.record(uid, 3, 30, "met", 5, "c", out(0, "passed"));
        await t.checks.record(uid, 4, 40, "met", 5, "d", out(0, "passed again"));
      });
      const list = await store.tables.checks.list(uid);
      expect(list.map((c) => [c.seq, c.exitCode, c.output])).toEqual([
        [1, 1, null],
        [2, 2, "second failure"],
        [3, 0, null],
        [4, 0, "passed again"],
      ]);
      await store.tx((t) => t.checks.record(uid, 5, 50, "error", 5, "e", out(null, "killed")));
      expect((await store.tables.checks.list(uid)).map((c) => c.output)).toEqual([null, null, null, null, "killed"]);
    });
  });
}

function wake(monitorUid: number, dedupeKey: string, kind: NewWake["kind"] = "events", createdAt = 100): NewWake {
  return {
    sessionId: "s",
    monitorUid,
    dedupeKey,
    kind,
    text: `wake ${dedupeKey}`,
    payload: {
      sessionId: "s",
      monitor: { id: "m", name: "n", kind: "signal", description: "d" },
      reason: kind === "ending" ? "met" : "events",
      endedAt: null,
      armedAt: new Date(0).toISOString(),
      waitedSeconds: 1,
      detail: null,
      lastObservation: null,
      lastError: null,
      continuation: null,
      events: [],
      omittedEvents: 0,
    },
    createdAt,
  };
}

function waitpoint(
  monitorUid: number,
  id: string,
  over: Partial<{ members: string[] | null; failFast: boolean; device: string | null }> = {},
) {
  return {
    monitorUid,
    id,
    secretHash: `hash-${id}`,
    members: null,
    quorum: 1,
    failFast: true,
    maxSignals: 5,
    heartbeatTimeoutMs: null,
    device: null,
    deviceId: null,
    ...over,
  };
}

function signal(monitorUid: number, status: "ok" | "fail" | "progress", eventSeq: number, key: string | null = null) {
  return {
    monitorUid,
    key,
    status,
    member: "m",
    message: "hi",
    data: '{"x":1}',
    via: "http" as const,
    receivedAt: 1000 + eventSeq,
    eventSeq,
  };
}
