/**
 * The panel's reads (#26): the counts, kept between changes, are never stale after one; the search,
 * through the text kept per monitor (migration 0016), finds exactly what the text as it is now holds.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import type { SourceKind } from "../../../shared/schemas/sources.js";
import { type PanelCounts, type PanelFilter, PanelTable } from "./panel.js";
import { Store } from "./store.js";

const stores: Store[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function open(file = ":memory:"): Store {
  const store = Store.open(file);
  stores.push(store);
  return store;
}

function session(store: Store, id: string, label: string | null = null): void {
  store.sessions.insert({ id, label, root: null, adapter: { kind: "inbox" }, createdAt: 0 });
}

let seq = 0;
function monitor(
  store: Store,
  sessionId: string,
  name: string,
  kind: SourceKind = "command",
  text = "true",
  device: string | null = null,
  heartbeatTimeoutMs: number | null = null,
): number {
  seq++;
  const source =
    kind === "signal"
      ? { kind: "signal", members: null, quorum: 1, failFast: true, maxSignals: 1 }
      : { kind: "command", command: text };
  const uid = store.monitors.insert({
    sessionId,
    id: kind === "signal" ? `wp_${String(seq).padStart(12, "0")}` : `mon-${seq}`,
    name,
    kind,
    source: source as never,
    continuation: "c",
    intervalMs: kind === "signal" ? null : 60_000,
    timeoutMs: 3_600_000,
    createdAt: seq,
    mode: kind === "signal" ? "signal" : "poll",
    nextDueAt: kind === "signal" ? null : 1,
    deadlineAt: 3_600_000,
  });
  if (kind === "signal") {
    store.waitpoints.insert({
      monitorUid: uid,
      id: `wp_${String(seq).padStart(12, "0")}`,
      secretHash: "h",
      members: null,
      quorum: 1,
      failFast: true,
      maxSignals: 1,
      heartbeatTimeoutMs,
      device,
      deviceId: null,
    });
  }
  return uid;
}

const ALL: PanelFilter = { sessionId: null, kind: null, device: null, q: null };

/** The counts as a table that keeps nothing reads them now. */
const fresh = (store: Store, filter: PanelFilter, needs: number[]): Map<string, PanelCounts> =>
  new PanelTable(store.db).counts(filter, needs, filter.q === null ? null : store.panel.search(filter.q));

test("counts are kept between changes and read again after every kind of change: never stale", () => {
  const store = open();
  session(store, "a");
  session(store, "b");
  const first = monitor(store, "a", "build");
  const second = monitor(store, "a", "deploy", "command");
  monitor(store, "b", "train", "signal");
  const needs = [second];
  const commands: PanelFilter = { ...ALL, kind: "command" };
  const check = (expected: Record<string, PanelCounts>) => {
    for (const filter of [ALL, commands]) {
      expect(Object.fromEntries(store.panel.counts(filter, needs, null))).toEqual(
        Object.fromEntries(fresh(store, filter, needs)),
      );
    }
    expect(Object.fromEntries(store.panel.counts(ALL, needs, null))).toEqual(expected);
  };
  check({ a: { all: 2, active: 2, ended: 0, needs: 1 }, b: { all: 1, active: 1, ended: 0, needs: 0 } });
  check({ a: { all: 2, active: 2, ended: 0, needs: 1 }, b: { all: 1, active: 1, ended: 0, needs: 0 } });

  monitor(store, "b", "another");
  check({ a: { all: 2, active: 2, ended: 0, needs: 1 }, b: { all: 2, active: 2, ended: 0, needs: 0 } });
  store.monitors.end(first, "waiting", "cancelled", "stopped", null, 5);
  check({ a: { all: 2, active: 1, ended: 1, needs: 1 }, b: { all: 2, active: 2, ended: 0, needs: 0 } });
  store.monitors.markCleared([first], 6);
  check({ a: { all: 1, active: 1, ended: 0, needs: 1 }, b: { all: 2, active: 2, ended: 0, needs: 0 } });
  store.monitors.delete(second);
  check({ b: { all: 2, active: 2, ended: 0, needs: 0 } });
  store.sessions.delete("b");
  check({});
});

test("counts are read again after another connection changed the database", () => {
  const dir = mkdtempSync(join(tmpdir(), "vigil-panel-"));
  dirs.push(dir);
  const file = join(dir, "vigil.db");
  const store = open(file);
  session(store, "a");
  monitor(store, "a", "build");
  expect(store.panel.counts(ALL, [], null).get("a")?.all).toBe(1);
  const other = open(file);
  monitor(other, "a", "deploy");
  expect(store.panel.counts(ALL, [], null).get("a")?.all).toBe(2);
});

test("search finds exactly the monitors whose text holds the query, as it is after every change", () => {
  const store = open();
  session(store, "a", "Alpha Deploys");
  session(store, "b", null);
  const uids = [
    monitor(store, "a", "Build ARM77", "command", "make arm77 && echo 'ok'"),
    monitor(store, "a", 'say "hi"', "command", "echo é"),
    monitor(store, "b", "train-arm770", "signal"),
    monitor(store, "b", "Ünïcode Name", "command", "true"),
    monitor(store, "b", "on the box", "signal", "", "DGX-1"),
  ];
  /** What a look at every monitor's text as it is now (the view) finds: the meaning of `q`. */
  const scan = (q: string): number[] =>
    (
      store.db.prepare("SELECT uid, text FROM monitor_search_text ORDER BY uid").all() as Array<{
        uid: number;
        text: string;
      }>
    )
      .filter((row) => row.text.replace(/[A-Z]/g, (c) => c.toLowerCase()).includes(q))
      .map((row) => row.uid);
  const queries = [
    "arm77",
    "arm",
    "ar",
    "a",
    "alpha dep",
    "deploys build",
    'say "hi',
    "é",
    "ünïcode",
    "name mon-",
    '{"kind"',
    "zzz",
    "dgx",
    "gpu",
  ];
  const check = () => {
    for (const q of queries)
      expect(
        store.panel.search(q).sort((x, y) => x - y),
        q,
      ).toEqual(scan(q));
  };
  check();
  expect(store.panel.search("alpha dep")).toEqual([uids[0], uids[1]]);
  expect(store.panel.search("ünïcode")).toEqual([]); // SQLite's lower() folds ASCII only, as before
  expect(store.panel.search("dgx-1")).toEqual([uids[4]]);

  store.sessions.setLabel("a", "Gamma");
  check();
  expect(store.panel.search("alpha")).toEqual([]);
  expect(store.panel.search("gamma")).toEqual([uids[0], uids[1]]);
  store.db.prepare("UPDATE waitpoints SET device = 'gpu-box' WHERE monitor_uid = ?").run(uids[2]);
  check();
  expect(store.panel.search("gpu-box")).toEqual([uids[2]]);
  store.db.prepare("DELETE FROM waitpoints WHERE monitor_uid = ?").run(uids[2]);
  check();
  store.monitors.delete(uids[0] as number);
  check();
  expect(store.panel.search("arm77")).toEqual([uids[2]]);
  store.sessions.delete("b");
  check();
  expect(store.panel.search("arm")).toEqual([]);
});

test("a short list read at once holds what each session's pages hold, in the same order", () => {
  const store = open();
  const uids: number[] = [];
  for (const id of ["a", "b", "c"]) session(store, id, `Team ${id}`);
  for (let i = 0; i < 30; i++)
    uids.push(monitor(store, ["a", "b", "c"][i % 3] as string, `job ${i}`, i % 4 ? "command" : "signal"));
  store.monitors.end(uids[4] as number, "waiting", "cancelled", "stopped", null, 1);
  const needs = [uids[1], uids[4], uids[8], uids[9], uids[20]] as number[];
  const found = store.panel.search("job 2");
  for (const filter of [ALL, { ...ALL, kind: "command" as const }, { ...ALL, q: "job 2" }]) {
    for (const list of ["needs", "all", "active", "ended"] as const) {
      const f = filter.q === null ? null : found;
      if (list !== "needs" && f === null) continue;
      const listed = store.panel.listed(filter, list, needs, f);
      for (const id of ["a", "b", "c"]) {
        expect(listed.get(id) ?? [], `${JSON.stringify(filter)} ${list} ${id}`).toEqual(
          store.panel.sessionPage(id, filter, list, needs, f, 0, 100),
        );
      }
    }
  }
});

test("the Needs-you monitor rows are kept between changes, read again after each, and the window moves with the clock", () => {
  const store = open();
  session(store, "a");
  const rows = (endedSince: number) =>
    store.panel.attentionMonitors(endedSince).map((row) => ({
      uid: row.uid,
      ending: row.endingReason,
      lastSignalAt: row.lastSignalAt,
      lastError: row.lastError,
    }));
  /** What a table that keeps nothing reads now. */
  const fresh = (endedSince: number) =>
    new PanelTable(store.db).attentionMonitors(endedSince).map((row) => ({
      uid: row.uid,
      ending: row.endingReason,
      lastSignalAt: row.lastSignalAt,
      lastError: row.lastError,
    }));
  expect(rows(0)).toEqual([]);
  const wp = monitor(store, "a", "train", "signal", "", null, 1000);
  const cmd = monitor(store, "a", "build");
  expect(rows(0)).toEqual([{ uid: wp, ending: null, lastSignalAt: null, lastError: null }]);
  store.waitpoints.insertSignal({
    monitorUid: wp,
    key: null,
    status: "progress",
    member: null,
    message: "step",
    data: null,
    via: "http",
    receivedAt: 50,
    eventSeq: 0,
  });
  expect(rows(0)).toEqual([{ uid: wp, ending: null, lastSignalAt: 50, lastError: null }]);
  store.monitors.recordCheck(cmd, {
    at: 60,
    nextDueAt: 70,
    error: "exit 127",
    unrunnableStreak: 0,
    conditionState: {},
  });
  expect(rows(0)).toEqual(fresh(0));
  expect(rows(0).map((row) => row.uid)).toEqual([cmd, wp]);
  store.monitors.end(wp, "waiting", "finished", "failed", "the waitpoint failed", 100);
  expect(rows(0)).toEqual([
    { uid: cmd, ending: null, lastSignalAt: null, lastError: "exit 127" },
    { uid: wp, ending: "failed", lastSignalAt: 50, lastError: null },
  ]);
  // No write between: the window moving past the failure leaves it out; moving back reads again.
  expect(rows(101).map((row) => row.uid)).toEqual([cmd]);
  expect(rows(100).map((row) => row.uid)).toEqual([cmd, wp]);
  expect(rows(0)).toEqual(fresh(0));
});

test("counts read inside a transaction that is then rolled back are not kept", () => {
  const store = open();
  session(store, "a");
  monitor(store, "a", "build");
  expect(store.panel.counts(ALL, [], null).get("a")?.all).toBe(1);
  expect(() =>
    store.tx(() => {
      monitor(store, "a", "deploy");
      expect(store.panel.counts(ALL, [], null).get("a")?.all).toBe(2);
      expect(store.panel.attentionMonitors(0)).toEqual([]);
      throw new Error("rolled back");
    }),
  ).toThrow("rolled back");
  expect(store.panel.counts(ALL, [], null).get("a")?.all).toBe(1);
});
