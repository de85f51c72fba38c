/**
 * The panel's dashboard logic (issue #26), pure: the "Needs you" list worked out from items when
 * the daemon sends none, the filters and counts, outcome colours, the per-session merge, when a
 * notification is due, and the data refresh (coalescing, a failed list said, per-session fetches).
 * Design: docs/design.md §7.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import type { AttentionItem, PanelItem, PanelList } from "../../shared/schemas/native-messages";
import type { CheckLoadView, MonitorView, WaitpointView } from "../../shared/schemas/views";
import { monitorView } from "../../test/helpers/views";
import { AttentionNotifier, NOTIFY_EVERY_MS } from "./notify-rule";
import { attentionKey, attentionOf, needsTally, needsTallyText } from "./panel-attention";
import { applyFilters, listQuery, NO_FILTERS } from "./panel-filter";
import { mergeSession } from "./panel-merge";
import { outcomeOf } from "./panel-outcome";
import { COALESCE_MS, createPanelData, MIN_GAP_MS, PAGE, STEP } from "./panel-refresh";
import { createPanelState } from "./panel-state";
import { sessionSplit } from "./panel-view";

const NOW = Date.parse("2026-12-02T12:00:00Z");
const at = (offsetMs: number) => new Date(NOW + offsetMs).toISOString();
const CALM: CheckLoadView = {
  overloaded: false,
  running: 0,
  concurrency: 32,
  waitingForSlot: 0,
  lag: { n: 0, p50Ms: null, p99Ms: null, maxMs: null },
  late: [],
};

const monitor = (overrides: Partial<MonitorView> = {}) => monitorView(at, { name: "CI run", ...overrides });
const item = (sid: string, m: Partial<MonitorView> = {}, waitpoint?: WaitpointView): PanelItem => ({
  session: { id: sid, label: `Session ${sid}` },
  monitor: monitor({ sessionId: sid, ...m }),
  ...(waitpoint ? { waitpoint } : {}),
});
const list = (items: PanelItem[], extra: Partial<PanelList> = {}): PanelList => ({
  total: items.length,
  offset: 0,
  items,
  devices: [],
  checks: CALM,
  ...extra,
});
const review = (wakeId: string, lastError = "POST http://x/hook answered 400"): Partial<MonitorView> => ({
  state: "needs_review",
  ending: { reason: "met", at: at(-5000), detail: null },
  delivery: { wakeId, state: "needs_review", attempts: 1, nextAttemptAt: null, lastError, deliveredVia: null },
});

describe("Needs you, worked out from the items (a daemon without `attention`)", () => {
  test("needs review first, then failing checks, devices, retrying, overload; each with its whole cause", () => {
    const items = [
      item("a", { id: "mon-1", name: "failing", lastError: "exit 2: boom\nline 2" }),
      item("a", {
        id: "mon-2",
        name: "retrying",
        state: "ready",
        ending: { reason: "met", at: at(-1000), detail: null },
        delivery: {
          wakeId: "wake-7",
          state: "ready",
          attempts: 2,
          nextAttemptAt: at(5000),
          lastError: "503",
          deliveredVia: null,
        },
      }),
      item("b", { id: "mon-3", name: "refused", ...review("wake-9", "answered 400\nbody: no") }),
      item("b", { id: "mon-4", name: "fine" }),
    ];
    const devices = [
      {
        name: "gpu1",
        ssh: "gpu1",
        port: null,
        identity: null,
        state: "offline" as const,
        lastError: "ssh: connect refused",
        lastCollectionAt: null,
        filesCollected: 0,
        collection: null,
        createdAt: at(-60_000),
      },
    ];
    const checks = { ...CALM, overloaded: true, waitingForSlot: 3 };
    const attention = attentionOf(list(items, { devices, checks }));
    expect(attention.map((a) => [a.reason, a.title])).toEqual([
      ["needs_review", "refused"],
      ["monitor_error", "failing"],
      ["device_error", "gpu1"],
      ["delivery_retrying", "retrying"],
      ["overload", "Checks are running late"],
    ]);
    expect(attention[0]).toMatchObject({
      wakeId: "wake-9",
      detail: "answered 400\nbody: no",
      actions: ["retry", "dismiss", "open"],
    });
    expect(attention[1]?.detail).toBe("exit 2: boom\nline 2");
  });

  test("the daemon's list, when it sends one, is used as it is", () => {
    const mine: AttentionItem[] = [
      {
        reason: "waitpoint_stalled",
        rank: 4,
        title: "train",
        detail: "no heartbeat for 7m",
        since: at(0),
        actions: [],
      },
    ];
    expect(attentionOf(list([item("a", review("wake-1"))], { attention: mine }))).toBe(mine);
  });
});

test("one Needs-you number: a thing each (a monitor once, a device, the overload), and what it is made of", () => {
  const entry = (extra: Partial<AttentionItem>): AttentionItem => ({
    reason: "monitor_error",
    rank: 4,
    title: "x",
    detail: "",
    since: at(0),
    actions: [],
    ...extra,
  });
  const attention = [
    entry({ reason: "needs_review", sessionId: "a", monitorId: "mon-1", wakeId: "wake-1" }),
    // An older daemon's list may name a monitor twice: it is one thing that needs the person.
    entry({ sessionId: "a", monitorId: "mon-1" }),
    entry({ reason: "waitpoint_failed", sessionId: "b", monitorId: "mon-2", waitpointId: "wp-1", device: "gpu1" }),
    entry({ reason: "device_error", device: "gpu1" }),
    entry({ reason: "overload" }),
  ];
  const tally = needsTally(attention);
  expect(tally).toEqual({ total: 4, monitors: 2, devices: 1, overload: true });
  expect(needsTallyText(tally)).toBe("2 monitors · 1 device · checks running late");
  expect(needsTallyText(needsTally(attention.slice(0, 1)))).toBe("1 monitor");
});

describe("filters and counts", () => {
  const items = [
    item("a", { id: "mon-1", name: "Deploy staging", source: { kind: "command", command: "curl staging" } }),
    item("a", {
      id: "mon-2",
      name: "Old canary",
      state: "cancelled",
      ending: { reason: "stopped", at: at(0), detail: null },
    }),
    item("b", { id: "mon-3", name: "Release", ...review("wake-1") }),
  ];
  test("counts per tab under the other filters; the tab picks the items", () => {
    const all = applyFilters(list(items), NO_FILTERS);
    expect(all.counts).toEqual({ all: 3, needs: 1, active: 1, ended: 2 });
    expect(all.sessions.map((s) => [s.id, s.counts.all])).toEqual([
      ["a", 2],
      ["b", 1],
    ]);
    const needs = applyFilters(list(items), { ...NO_FILTERS, filter: "needs" });
    expect(needs.items.map((i) => i.monitor.name)).toEqual(["Release"]);
    const inA = applyFilters(list(items), { ...NO_FILTERS, session: "a", filter: "ended" });
    expect(inA.items.map((i) => i.monitor.name)).toEqual(["Old canary"]);
    expect(inA.counts).toEqual({ all: 2, needs: 0, active: 1, ended: 1 });
  });
  test("search covers what the rows show (names, ids, the last error), case-insensitively, not a hidden command", () => {
    expect(applyFilters(list(items), { ...NO_FILTERS, q: "STAGING" }).items).toHaveLength(1);
    expect(applyFilters(list(items), { ...NO_FILTERS, q: "curl" }).items).toEqual([]);
    const failing = item("b", { name: "Train", lastError: "CUDA out of memory at step 1200" });
    expect(applyFilters(list([...items, failing]), { ...NO_FILTERS, q: "cuda" }).items).toEqual([failing]);
  });
  test("a daemon that filtered (it sent counts) is not filtered again", () => {
    const counts = { all: 9, needs: 1, active: 4, ended: 5 };
    const filtered = list(items, { counts, sessions: [] });
    expect(applyFilters(filtered, { ...NO_FILTERS, q: "nothing matches" })).toMatchObject({ counts, items });
  });
  test("the request carries only the filters set", () => {
    expect(listQuery(NO_FILTERS)).toEqual({});
    expect(
      listQuery({ filter: "needs", session: "a", kind: "waitpoint", device: "gpu1", host: "beta", q: " x " }),
    ).toEqual({
      filter: "needs",
      session: "a",
      kind: "waitpoint",
      device: "gpu1",
      host: "beta",
      q: "x",
    });
  });
});

test("colour follows the outcome, not the state", () => {
  const ended = (reason: string) =>
    outcomeOf(item("a", { state: "ready", ending: { reason, at: at(0), detail: null } as MonitorView["ending"] }));
  expect(ended("met")).toEqual({ tone: "met", text: "met" });
  expect(ended("timeout")).toEqual({ tone: "failed", text: "timed out" });
  expect(ended("error")).toEqual({ tone: "failed", text: "error" });
  expect(ended("rate_limited")).toEqual({ tone: "failed", text: "rate-limited" });
  expect(ended("stopped")).toEqual({ tone: "cancelled", text: "cancelled" });
  expect(outcomeOf(item("a", { state: "paused" })).tone).toBe("paused");
  expect(outcomeOf(item("a")).tone).toBe("waiting");
});

test("ended monitors over a day old are folded; active ones never", () => {
  const old = item("a", {
    id: "old",
    state: "finished",
    ending: { reason: "met", at: at(-2 * 86_400_000), detail: null },
  });
  const recent = item("a", {
    id: "new",
    state: "finished",
    ending: { reason: "met", at: at(-3_600_000), detail: null },
  });
  const active = item("a", { id: "act", createdAt: at(-9 * 86_400_000) });
  const { recent: shown, older } = sessionSplit([old, recent, active], NOW);
  expect(shown.map((i) => i.monitor.id)).toEqual(["new", "act"]);
  expect(older.map((i) => i.monitor.id)).toEqual(["old"]);
});

test("a per-session answer replaces that session's items, counts, sessions entry and attention", () => {
  const c = (all: number, needs: number) => ({ all, needs, active: all - needs, ended: needs });
  const overload: AttentionItem = {
    reason: "overload",
    rank: 8,
    title: "late",
    detail: "x",
    since: at(0),
    actions: [],
  };
  const entry = (sid: string, wake: string): AttentionItem => ({
    reason: "needs_review",
    rank: 0,
    sessionId: sid,
    wakeId: wake,
    title: sid,
    detail: "",
    since: at(0),
    actions: [],
  });
  const before = list([item("a", { id: "a1" }), item("b", { id: "b1" }), item("a", { id: "a2" })], {
    total: 3,
    counts: c(3, 1),
    sessions: [
      { id: "a", label: null, counts: c(2, 1) },
      { id: "b", label: null, counts: c(1, 0) },
    ],
    attention: [entry("a", "wake-1"), overload],
  });
  const reply = list([item("a", { id: "a3" })], {
    counts: c(1, 0),
    sessions: [{ id: "a", label: null, counts: c(1, 0) }],
    attention: [],
  });
  const after = mergeSession(before, "a", reply);
  expect(after.items.map((i) => i.monitor.id)).toEqual(["a3", "b1"]);
  expect(after.counts).toEqual(c(2, 0));
  expect(after.total).toBe(2);
  expect(after.sessions?.map((s) => [s.id, s.counts.all])).toEqual([
    ["a", 1],
    ["b", 1],
  ]);
  // The entry about a is gone; the overload (about no session) is the newer answer's: none.
  expect(after.attention).toEqual([]);
  // What did not change stays the same object (its row is kept as drawn); what changed is the reply's.
  const same = item("b", { id: "b1" });
  const again = mergeSession(after, "b", list([same, item("b", { id: "b2" })], { sessions: [], attention: [] }));
  expect(again.items.find((i) => i.monitor.id === "b1")).toBe(after.items.find((i) => i.monitor.id === "b1"));
  const changed = item("b", { id: "b1", name: "renamed" });
  const renamed = mergeSession(after, "b", list([changed], { sessions: [], attention: [] }));
  expect(renamed.items.find((i) => i.monitor.id === "b1")).toBe(changed);
  const withB = mergeSession(
    after,
    "b",
    list([], { counts: c(0, 0), sessions: [], attention: [entry("b", "wake-2")] }),
  );
  expect(withB.attention?.map(attentionKey)).toEqual(["needs_review:b::wake-2"]);
  expect(withB.sessions?.map((s) => s.id)).toEqual(["a"]);
});

describe("notifications", () => {
  const entry = (sid: string, wake: string, monitorId = "mon-1"): AttentionItem => ({
    reason: "needs_review",
    rank: 0,
    sessionId: sid,
    monitorId,
    wakeId: wake,
    title: `${sid} ${wake}`,
    detail: "",
    since: at(0),
    actions: [],
  });
  test("what already needed the person at start-up is not news; what is new is, once", () => {
    const n = new AttentionNotifier();
    expect(n.update([entry("a", "wake-1")], NOW)).toEqual([]);
    const notices = n.update([entry("a", "wake-1"), entry("b", "wake-2")], NOW + 1000);
    expect(notices.map((x) => [x.session, x.items.map((i) => i.wakeId)])).toEqual([["b", ["wake-2"]]]);
    expect(n.update([entry("a", "wake-1"), entry("b", "wake-2")], NOW + 2000)).toEqual([]);
  });
  test("at most one a minute per session: the rest waits for the minute, then comes in one", () => {
    const n = new AttentionNotifier();
    n.update([], NOW);
    expect(n.update([entry("a", "wake-1")], NOW)).toHaveLength(1);
    const later = [entry("a", "wake-1"), entry("a", "wake-2", "mon-2"), entry("a", "wake-3", "mon-3")];
    expect(n.update(later, NOW + 10_000)).toEqual([]);
    expect(n.nextDue(later, NOW + 10_000)).toBe(NOW + NOTIFY_EVERY_MS);
    const due = n.update(later, NOW + NOTIFY_EVERY_MS);
    expect(due).toHaveLength(1);
    expect(due[0]?.items.map((i) => i.wakeId)).toEqual(["wake-2", "wake-3"]);
    // Another session is not held back by this one's minute.
    expect(n.update([...later, entry("c", "wake-4")], NOW + NOTIFY_EVERY_MS + 1)).toHaveLength(1);
  });
  test("never for what the person did: an entry on a monitor or wake they just acted on", () => {
    const n = new AttentionNotifier();
    n.update([], NOW);
    n.acted("a", "wake-1", NOW);
    n.acted("b", "mon-9", NOW);
    expect(n.update([entry("a", "wake-1"), entry("b", "wake-5", "mon-9")], NOW + 5000)).toEqual([]);
    // An entry that leaves and comes back is news again.
    n.update([], NOW + 6000);
    expect(n.update([entry("a", "wake-1")], NOW + 10 * 60_000)).toHaveLength(1);
  });
});

describe("the data refresh", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());
  const merging = (items: PanelItem[]) =>
    list(items, {
      counts: { all: items.length, needs: 0, active: items.length, ended: 0 },
      sessions: [...new Set(items.map((i) => i.session.id))].map((id) => ({
        id,
        label: null,
        counts: { all: 1, needs: 0, active: 1, ended: 0 },
      })),
      attention: [],
    });

  test("a burst of changes makes one fetch; a change naming a session fetches that session alone", async () => {
    const state = createPanelState();
    const requests: Array<Record<string, unknown>> = [];
    const data = createPanelData({
      state,
      request: async (body) => {
        requests.push(body as Record<string, unknown>);
        const sid = (body as { session?: string }).session;
        return merging(sid ? [item(sid, { id: "new" })] : [item("a"), item("b")]);
      },
      render: () => undefined,
    });
    await data.refresh();
    expect(requests).toHaveLength(1);
    for (let i = 0; i < 10; i++) data.onPush({ type: "changed", sessionId: "b" });
    await vi.advanceTimersByTimeAsync(MIN_GAP_MS + 10);
    expect(requests.slice(1)).toEqual([expect.objectContaining({ type: "list", session: "b" })]);
    expect(state.list?.items.map((i) => `${i.session.id}/${i.monitor.id}`)).toEqual(["a/mon-1", "b/new"]);
    expect(data.fetches).toEqual({ whole: 1, session: 1 });
    // No session named (the devices changed): the whole list.
    data.onPush({ type: "changed" });
    await vi.advanceTimersByTimeAsync(MIN_GAP_MS + 10);
    expect(data.fetches).toEqual({ whole: 2, session: 1 });
  });

  test("a page is asked for in requests of at most STEP items; an item the list moved into two requests is kept once", async () => {
    const state = createPanelState();
    // 450 items in the daemon; between the first two requests one more arrives at the top, so the
    // second request's first item is the first request's last.
    let daemon = Array.from({ length: 450 }, (_, i) => item(`s${Math.floor(i / 50)}`, { id: `mon-${i}` }));
    const asked: Array<{ offset: number; limit: number }> = [];
    const data = createPanelData({
      state,
      request: async (body) => {
        const { offset, limit } = body as { offset: number; limit: number };
        asked.push({ offset, limit });
        const reply = merging(daemon.slice(offset, offset + limit));
        if (asked.length === 2) daemon = [item("s0", { id: "mon-new" }), ...daemon];
        return { ...reply, total: daemon.length, offset };
      },
      render: () => undefined,
    });
    state.list = list([]); // not the first list: the whole page at once
    await data.refresh();
    expect(asked).toEqual([
      { offset: 0, limit: STEP },
      { offset: STEP, limit: STEP },
      { offset: 2 * STEP, limit: PAGE - 2 * STEP },
    ]);
    const keys = state.list?.items.map((i) => i.monitor.id) ?? [];
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toHaveLength(450);
    expect(keys.slice(0, 2)).toEqual(["mon-0", "mon-1"]);
    expect(state.list?.total).toBe(451);
    expect(data.fetches).toEqual({ whole: 1, session: 0 });
  });

  test("the first change after a quiet spell is fetched after COALESCE_MS; a stream of them once per MIN_GAP_MS", async () => {
    const state = createPanelState();
    const started: number[] = [];
    const data = createPanelData({
      state,
      request: async (body) => {
        started.push(Date.now());
        const sid = (body as { session?: string }).session;
        return merging(sid ? [item(sid)] : [item("a"), item("b")]);
      },
      render: () => undefined,
    });
    await data.refresh();
    await vi.advanceTimersByTimeAsync(10 * MIN_GAP_MS);
    const quiet = Date.now();
    data.onPush({ type: "changed", sessionId: "a" });
    await vi.advanceTimersByTimeAsync(COALESCE_MS + 10);
    expect(started.slice(1)).toEqual([quiet + COALESCE_MS]);
    // A change every 100 ms for 2 s: a fetch every MIN_GAP_MS, never sooner; the last one is fetched.
    for (let t = 0; t < 20; t++) {
      data.onPush({ type: "changed", sessionId: t % 2 ? "a" : "b" });
      await vi.advanceTimersByTimeAsync(100);
    }
    await vi.advanceTimersByTimeAsync(MIN_GAP_MS + 10);
    // One fetch asks for each session it covers (its requests start at the same instant).
    const fetchesAt = [...new Set(started)];
    const gaps = fetchesAt.slice(2).map((at, i) => at - (fetchesAt[i + 1] as number));
    expect(gaps.length).toBeGreaterThanOrEqual(4);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(MIN_GAP_MS);
    expect(data.busy()).toMatchObject({ running: false, timer: false, wanted: [] });
  });

  test("a change taken up by a running fetch leaves no stale timer behind: later refreshes still fetch", async () => {
    const state = createPanelState();
    const answers: Array<() => void> = [];
    let sent = 0;
    const data = createPanelData({
      state,
      request: () => {
        sent++;
        return new Promise((resolve) => answers.push(() => resolve(list([item("a")]))));
      },
      render: () => undefined,
    });
    const first = data.refresh();
    data.onPush({ type: "changed", sessionId: "a" });
    answers.shift()?.();
    // The running fetch takes the change up at once (a second fetch) before the timer fires.
    await vi.waitFor(() => expect(sent).toBe(2));
    answers.shift()?.();
    await first;
    await vi.advanceTimersByTimeAsync(COALESCE_MS + 10);
    // The timer found nothing left to fetch; a refresh now fetches again (it used to hang on a
    // finished drain and never fetch again).
    const again = data.refresh();
    await vi.waitFor(() => expect(sent).toBe(3));
    answers.shift()?.();
    await again;
    expect(data.busy().running).toBe(false);
  });

  test("a list that fails says so (and keeps the last one); the next success clears it", async () => {
    const state = createPanelState();
    let fail = false;
    const data = createPanelData({
      state,
      request: async () => {
        if (fail) throw new Error("Reply too large (1.2 MB): ask for a smaller page");
        return list([item("a")]);
      },
      render: () => undefined,
    });
    await data.refresh();
    fail = true;
    await data.refresh();
    expect(state.listFailed).toBe(true);
    expect(state.error).toBe("The list could not be fetched: Reply too large (1.2 MB): ask for a smaller page");
    expect(state.list?.items).toHaveLength(1);
    fail = false;
    await data.refresh();
    expect(state.listFailed).toBe(false);
    expect(state.error).toBeNull();
  });
});
