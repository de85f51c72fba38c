/**
 * The side panel's pure view functions: badges, grouping, details, check log, quorum, devices.
 * (Relative times and delivery wording are tested with shared/wording.ts.)
 * Design: docs/design.md §7.
 */
import { describe, expect, test } from "vitest";
import type { PanelItem } from "../../shared/schemas/native-messages";
import type { DeviceView, MonitorView, WaitpointView } from "../../shared/schemas/views";
import { STATE_LABELS } from "../../shared/states";
import { monitorView } from "../../test/helpers/views";
import { outcomeOf } from "./panel-outcome";
import { restFact, restTime } from "./panel-row-fact";
import {
  canPause,
  checkLines,
  deliveryBadges,
  deviceDetails,
  deviceRows,
  groupBySession,
  monitorDetails,
  quorumText,
  waitpointBadges,
  watchedTabs,
} from "./panel-view";

const NOW = Date.parse("2026-12-02T12:00:00Z");
const at = (offsetMs: number) => new Date(NOW + offsetMs).toISOString();

function monitor(overrides: Partial<MonitorView> = {}): MonitorView {
  return monitorView(at, {
    name: "CI run",
    polls: 1,
    createdAt: at(-60_000),
    lastCheckAt: at(-3_000),
    nextCheckAt: at(27_000),
    deadlineAt: at(3 * 3_600_000),
    intervalSeconds: 30,
    timeoutSeconds: 10_800,
    source: { kind: "command", command: "true" },
    ...overrides,
  });
}

function waitpoint(overrides: Partial<WaitpointView> = {}): WaitpointView {
  return {
    id: "wp_1",
    sessionId: "s",
    label: "train-arm2",
    intent: "compare",
    device: null,
    state: "armed",
    monitorState: "waiting",
    members: null,
    quorum: 1,
    failFast: true,
    maxSignals: 1,
    received: 0,
    heartbeats: 0,
    progress: "train-arm2 · 0/1 received",
    createdAt: at(-60_000),
    expiresAt: at(3 * 3_600_000 - 30_000),
    endedAt: null,
    wakesSent: 0,
    wakesThisHour: 0,
    maxWakesPerHour: 12,
    heldUntil: null,
    earlierSignals: 0,
    signals: [],
    deviceState: null,
    stall: null,
    lastSignalAt: null,
    ...overrides,
  };
}

describe("badges", () => {
  test("the hourly cap holding a wake back", () => {
    const held = waitpointBadges(waitpoint({ heldUntil: at(600_000), wakesThisHour: 12 }), monitor());
    expect(held).toEqual([
      { tone: "warn", text: "wake limit reached (12/h) — the next wake waits until the hour clears" },
    ]);
  });
  test("the budget shows from two below the cap, not before", () => {
    expect(waitpointBadges(waitpoint({ wakesThisHour: 9 }), monitor())).toEqual([]);
    expect(waitpointBadges(waitpoint({ wakesThisHour: 10 }), monitor())).toEqual([
      { tone: "info", text: "10/12 wakes this hour" },
    ]);
  });
  test("a delivery being retried, with its error on hover", () => {
    const retrying = monitor({
      delivery: { wakeId: "w1", state: "ready", attempts: 3, nextAttemptAt: at(4000), lastError: "HTTP 503" },
    } as Partial<MonitorView>);
    expect(deliveryBadges(retrying)).toEqual([
      { tone: "warn", text: "delivery retrying · 3 attempts", title: "HTTP 503" },
    ]);
    expect(deliveryBadges(monitor())).toEqual([]);
  });
  test("a delivery that needs review is a danger badge", () => {
    const stuck = monitor({
      delivery: { wakeId: "w1", state: "needs_review", attempts: 5, nextAttemptAt: null, lastError: "gone" },
    } as Partial<MonitorView>);
    expect(deliveryBadges(stuck)).toEqual([{ tone: "danger", text: "delivery needs review", title: "gone" }]);
  });
  test("a failure signal is its own danger badge", () => {
    const failed = waitpoint({
      signals: [{ status: "fail", member: "train", message: "OOM", data: null, via: "http", at: at(-1000) }],
    });
    expect(waitpointBadges(failed, monitor())).toContainEqual({ tone: "danger", text: "failure from train: OOM" });
  });
});

test("sessions group their monitors, active first then newest", () => {
  const items: PanelItem[] = [
    { session: { id: "a", label: "Agent A" }, monitor: monitor({ id: "old", createdAt: at(-9000) }) },
    { session: { id: "b", label: null }, monitor: monitor({ id: "b1" }) },
    { session: { id: "a", label: "Agent A" }, monitor: monitor({ id: "done", state: "finished", createdAt: at(-1) }) },
    { session: { id: "a", label: "Agent A" }, monitor: monitor({ id: "new", createdAt: at(-1000) }) },
  ];
  const groups = groupBySession(items);
  expect(groups.map((g) => [g.label, g.items.map((i) => i.monitor.id)])).toEqual([
    ["Agent A", ["new", "old", "done"]],
    ["b", ["b1"]],
  ]);
});

test("details: last and next check and the deadline while waiting; the ending once over", () => {
  expect(monitorDetails(monitor({ eventCount: 1 }), NOW)).toEqual([
    "checked 3s ago",
    "next in 27s",
    "deadline in 3h",
    "1 event",
  ]);
  const ended = monitor({ state: "finished", ending: { reason: "met", at: at(-5000), detail: null } });
  expect(monitorDetails(ended, NOW)).toEqual(["checked 3s ago", "met 5s ago", "0 events"]);
  // A cancel reads "cancelled", not the internal "stopped"; an overdue next check reads "now", not "46s ago".
  const cancelled = monitor({ state: "cancelled", ending: { reason: "stopped", at: at(-5000), detail: null } });
  expect(monitorDetails(cancelled, NOW)).toContain("cancelled 5s ago");
  expect(monitorDetails(monitor({ nextCheckAt: at(-46_000) }), NOW)).toContain("next now");
});

test("a waitpoint's details: progress and expiry, never 'checked'", () => {
  const wp = waitpoint();
  const m = monitor({ id: "wp_1", kind: "signal", lastCheckAt: at(-1000), nextCheckAt: null, deadlineAt: null });
  expect(monitorDetails(m, NOW, wp)).toEqual(["0/1 received", "expires in 3h", "0 events"]);
  // A mailbox still open past its quorum does not read "1/1 received".
  const open = waitpoint({ received: 1, maxSignals: 5 });
  expect(monitorDetails(m, NOW, open)[0]).toBe("1 signal received");
});

test("watches and waitpoints offer no Pause", () => {
  expect(canPause(monitor())).toBe(true);
  expect(canPause(monitor({ kind: "watch" }))).toBe(false);
  expect(canPause(monitor({ kind: "signal" }))).toBe(false);
  expect(canPause(monitor({ state: "paused" }))).toBe(false);
});

test("watched tabs are those of active browser monitors", () => {
  const browser = (id: string, tabId: number, state: MonitorView["state"]) =>
    monitor({
      id,
      name: id,
      kind: "browser",
      state,
      source: {
        kind: "browser",
        tabId,
        url: "http://x/",
        selector: "#s",
        condition: { path: "text", operator: "exists" },
      },
    });
  const items: PanelItem[] = [
    { session: { id: "s", label: null }, monitor: browser("a", 7, "waiting") },
    { session: { id: "s", label: null }, monitor: browser("b", 7, "paused") },
    { session: { id: "s", label: null }, monitor: browser("c", 9, "finished") },
  ];
  expect([...watchedTabs(items)]).toEqual([[7, ["a", "b"]]]);
});

test("quorum: who is still pending", () => {
  const wp = waitpoint({
    members: ["train", "eval"],
    quorum: 2,
    received: 1,
    signals: [{ status: "ok", member: "train", message: null, data: null, via: "spool", at: at(-1) }],
  });
  expect(quorumText(wp)).toBe("1/2 needed · waiting on eval");
});

test("the check log reads newest first, one line each", () => {
  const lines = checkLines(
    [
      { seq: 1, at: at(-20_000), outcome: "unavailable", durationMs: 3, excerpt: "browser not connected" },
      { seq: 2, at: at(-10_000), outcome: "not_met", durationMs: 12.4, excerpt: "Running\nmore" },
      { seq: 3, at: at(-1_000), outcome: "met", durationMs: null, excerpt: null },
    ],
    NOW,
  );
  expect(lines).toEqual([
    "met · 1s ago",
    "not met · 12 ms · 10s ago — Running",
    "unavailable · 3 ms · 20s ago — browser not connected",
  ]);
});

function device(overrides: Partial<DeviceView> = {}): DeviceView {
  return {
    name: "gpu1",
    ssh: "me@gpu1",
    port: null,
    identity: null,
    state: "connected",
    lastError: null,
    lastCollectionAt: at(-12_000),
    filesCollected: 3,
    collection: "inotify",
    createdAt: at(-3_600_000),
    ...overrides,
  };
}

describe("devices", () => {
  test("no devices, no rows (and so no section)", () => {
    expect(deviceRows([])).toEqual([]);
    expect(deviceRows(undefined)).toEqual([]);
  });

  test("each state reads NAME · state, with the error behind offline and error", () => {
    const rows = deviceRows([
      device(),
      device({ name: "gpu2", state: "offline", lastError: "ssh: connect to host gpu2 port 22: Connection refused" }),
      device({ name: "gpu3", state: "error", lastError: "Permission denied (publickey).\nmore" }),
      device({ name: "gpu4", state: "offline", lastError: null, lastCollectionAt: null }),
    ]);
    expect(rows.map((r) => [r.state, r.error, r.headline])).toEqual([
      ["connected", null, "gpu1 · connected"],
      [
        "offline",
        "ssh: connect to host gpu2 port 22: Connection refused",
        "gpu2 · offline: ssh: connect to host gpu2 port 22: Connection refused",
      ],
      ["error", "Permission denied (publickey).", "gpu3 · error: Permission denied (publickey)."],
      ["offline", null, "gpu4 · offline"],
    ]);
  });

  test("a connected device's last error is history: not shown", () => {
    const [row] = deviceRows([device({ lastError: "ssh: Connection reset" })]);
    expect(row).toMatchObject({ status: "connected", error: null, headline: "gpu1 · connected" });
  });

  test("details: when it was last collected from, with the panel's relative time, and how many files", () => {
    const [collected, never, one] = deviceRows([
      device(),
      device({ name: "gpu2", lastCollectionAt: null, filesCollected: 0 }),
      device({ name: "gpu3", lastCollectionAt: at(-2 * 3_600_000), filesCollected: 1 }),
    ]);
    expect(deviceDetails(collected as NonNullable<typeof collected>, NOW)).toBe("collected 12s ago · 3 files");
    expect(deviceDetails(never as NonNullable<typeof never>, NOW)).toBe("not collected yet · 0 files");
    expect(deviceDetails(one as NonNullable<typeof one>, NOW)).toBe("collected 2h ago · 1 file");
  });
});

test("a waitpoint's heartbeats are counted beside its signals: never '0 signals received' after one came (#38)", () => {
  const m = monitor({ id: "wp_1", kind: "signal", lastCheckAt: at(-1000), nextCheckAt: null, deadlineAt: null });
  const stalled = waitpoint({ state: "failed", received: 0, heartbeats: 2 });
  expect(monitorDetails(m, NOW, stalled)[0]).toBe("0 signals received · 2 heartbeats");
});

/** One word per state (issue #38 item 11): the CLI's status line takes the same (native-host/src/cli/format.test.ts). */
test.each(["waiting", "paused", "ready", "continuing", "needs_review"] as const)(
  "the chip names %s by STATE_LABELS, as the CLI's status line does",
  (state) => {
    expect(outcomeOf({ session: { id: "s", label: null }, monitor: monitor({ state, ending: null }) }).text).toBe(
      STATE_LABELS[state],
    );
  },
);

describe("a row at rest: its one fact and one time (issue #38 items 12, 13)", () => {
  const item = (m: Partial<MonitorView>, wp?: WaitpointView): PanelItem => ({
    session: { id: "s", label: null },
    monitor: monitor(m),
    waitpoint: wp,
  });
  test("why it wants a look comes first: a delivery problem, a failure's message, a failing check, an error", () => {
    const review = {
      wakeId: "wake-1",
      state: "needs_review" as const,
      attempts: 3,
      nextAttemptAt: null,
      lastError: "POST … answered 400",
      deliveredVia: null,
    };
    expect(restFact(item({ delivery: review, lastError: "boom" }))).toBe("delivery needs review");
    const failed = waitpoint({
      state: "failed",
      signals: [{ status: "fail", member: null, message: "CUDA out of memory\nat step 1200", via: "http", at: at(-1) }],
    } as Partial<WaitpointView>);
    expect(restFact(item({ kind: "signal" }, failed))).toBe("CUDA out of memory");
    expect(restFact(item({ lastOutput: { exitCode: 2, lines: "step 1\n2 tests failed\n" } }))).toBe(
      "2 tests failed (exit 2)",
    );
    expect(restFact(item({ lastError: "tab closed: tab 4 no longer exists\nmore" }))).toBe(
      "tab closed: tab 4 no longer exists",
    );
  });
  test("else what its condition read, else a waitpoint's progress, else nothing", () => {
    const readFields = [
      { path: "status", value: "200" },
      { path: "body.state", value: '"success"' },
    ];
    expect(restFact(item({ kind: "tool", readFields, lastEvent: '{"status":200,"headers":{}}' }))).toBe(
      'status 200 · body.state "success"',
    );
    expect(restFact(item({ kind: "signal" }, waitpoint()))).toBe("0/1 received");
    expect(restFact(item({}))).toBeNull();
  });
  test("the time: when it ended, else when it ends at the latest", () => {
    expect(restTime(item({}))).toEqual({ prefix: "ends ", iso: at(3 * 3_600_000), future: true });
    expect(restTime(item({ kind: "signal" }, waitpoint()))).toMatchObject({ iso: at(3 * 3_600_000 - 30_000) });
    const ended = item({ state: "finished", ending: { reason: "met", at: at(-5_000), detail: null } });
    expect(restTime(ended)).toEqual({ prefix: "", iso: at(-5_000) });
  });
});
