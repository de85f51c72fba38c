/**
 * The "Needs you" list (#26): which rows need the person, why, in what order, with which actions;
 * one entry per monitor; the overload entry names monitors by their names.
 */
import { describe, expect, test } from "vitest";
import { ATTENTION_REASONS, type CheckLoadView, type DeviceView } from "../../../shared/schemas/views.js";
import type { MonitorAttentionRow, WakeAttentionRow } from "../store/panel.js";
import { type AttentionInput, attentionList } from "./attention.js";
import { HANDOVER_UNSEEN, INTERRUPTED, UNSEALED_ADAPTER, UNSEALED_CHECK } from "./review-causes.js";

const NOW = Date.parse("2026-12-02T12:00:00Z");
const MIN = 60_000;

let uid = 0;
const wake = (overrides: Partial<WakeAttentionRow> = {}): WakeAttentionRow => {
  uid += 1;
  return {
    id: uid,
    sessionId: "s1",
    monitorUid: uid,
    monitorId: `mon-${uid}`,
    name: `wake monitor ${uid}`,
    kind: "command",
    waitpointId: null,
    state: "needs_review",
    attempts: 5,
    lastError: "POST https://hooks.example answered 500",
    nextAttemptAt: null,
    createdAt: NOW - 10 * MIN,
    ...overrides,
  };
};

const monitor = (overrides: Partial<MonitorAttentionRow> = {}): MonitorAttentionRow => {
  uid += 1;
  return {
    uid,
    sessionId: "s1",
    monitorId: `mon-${uid}`,
    name: `monitor ${uid}`,
    kind: "command",
    state: "waiting",
    lastError: null,
    errorSince: null,
    endingReason: null,
    endingAt: null,
    endingDetail: null,
    createdAt: NOW - 60 * MIN,
    waitpointId: null,
    heartbeatTimeoutMs: null,
    lastSignalAt: null,
    failMessage: null,
    progressMessage: null,
    device: null,
    ...overrides,
  };
};

const device = (overrides: Partial<DeviceView> = {}): DeviceView => ({
  name: "gpu1",
  ssh: "me@gpu1",
  port: null,
  identity: null,
  state: "error",
  lastError: "ssh: connect to host gpu1 port 22: Connection refused",
  lastCollectionAt: new Date(NOW - 30 * MIN).toISOString(),
  filesCollected: 0,
  collection: null,
  createdAt: new Date(NOW - 90 * MIN).toISOString(),
  ...overrides,
});

const calm: CheckLoadView = {
  overloaded: false,
  running: 0,
  concurrency: 32,
  waitingForSlot: 0,
  lag: { n: 0, p50Ms: null, p99Ms: null, maxMs: null },
  late: [],
};

const overloaded: CheckLoadView = {
  ...calm,
  overloaded: true,
  late: [
    { sessionId: "s1", monitorId: "mon-3", name: "nightly build", lateMs: 4200, at: new Date(NOW - MIN).toISOString() },
  ],
};

const input = (overrides: Partial<AttentionInput> = {}): AttentionInput => ({
  now: NOW,
  wakes: [],
  monitors: [],
  devices: [],
  checks: calm,
  shield: (text) => text.replaceAll("hunter2", "[secret]"),
  ...overrides,
});

describe("the Needs-you list", () => {
  test("one entry of each reason comes most urgent first, ranks ascending", () => {
    const list = attentionList(
      input({
        // Listed in reverse urgency, each newer than the next, so neither input order nor age decides.
        wakes: [
          wake({ state: "ready", attempts: 0, lastError: null, createdAt: NOW - 20 * MIN }),
          wake({ state: "ready", attempts: 2, lastError: "HTTP 503", createdAt: NOW - 21 * MIN }),
          wake({ lastError: "command exited 2 (gave up after 5 attempts)", createdAt: NOW - 2 * MIN }),
          wake({ lastError: INTERRUPTED, createdAt: NOW - MIN }),
        ],
        monitors: [
          monitor({ lastError: "exit 127: gh: command not found", errorSince: NOW - 3 * MIN }),
          monitor({ state: "paused", lastError: UNSEALED_CHECK, errorSince: NOW - 30 * 1000 }),
          monitor({
            kind: "signal",
            waitpointId: "wp_000000000001",
            heartbeatTimeoutMs: 5 * MIN,
            lastSignalAt: NOW - 7 * MIN,
          }),
          monitor({
            kind: "signal",
            state: "ready",
            waitpointId: "wp_000000000002",
            endingReason: "failed",
            endingAt: NOW - 4 * MIN,
            endingDetail: "arm2 fail: CUDA out of memory",
          }),
        ],
        devices: [device(), device({ name: "laptop", state: "offline", lastError: null })],
        checks: overloaded,
      }),
    );
    expect(list.items.map((item) => item.reason)).toEqual([...ATTENTION_REASONS]);
    expect(list.items.map((item) => item.rank)).toEqual(ATTENTION_REASONS.map((_, i) => i));
  });

  test.each([
    [INTERRUPTED, "needs_review"],
    [`${HANDOVER_UNSEEN}; the transcript was not read: EACCES`, "needs_review"],
    [null, "needs_review"],
    ["POST https://hooks.example answered 410 (gave up after 5 attempts)", "delivery_failed"],
  ])("a wake in review with error %j is %s, with Send again and Dismiss", (lastError, reason) => {
    const [item] = attentionList(input({ wakes: [wake({ lastError })] })).items;
    expect(item).toMatchObject({ reason, wakeId: expect.stringMatching(/^wake-\d+$/) });
    expect(item?.actions).toEqual(["retry", "dismiss", "open"]);
  });

  test("a check or an adapter its host refused to run (no seal of this host) is 'unsealed', most urgent, saying what to do", () => {
    const { items } = attentionList(
      input({
        wakes: [wake({ lastError: UNSEALED_ADAPTER, createdAt: NOW - MIN })],
        monitors: [monitor({ state: "paused", lastError: UNSEALED_CHECK, errorSince: NOW - 2 * MIN })],
      }),
    );
    expect(items.map((item) => [item.reason, item.rank, item.actions])).toEqual([
      ["unsealed", 0, ["cancel", "open"]],
      ["unsealed", 0, ["retry", "dismiss", "open"]],
    ]);
    expect(items[0]?.detail).toContain("arm it again through this host's daemon");
    expect(items[1]?.detail).toContain("set the adapter again through this host's daemon");
  });

  test("the whole cause is the detail, shielded", () => {
    const error = "line 1\nline 2: token hunter2 refused\nline 3";
    const [item] = attentionList(input({ wakes: [wake({ lastError: error })] })).items;
    expect(item?.detail).toBe("line 1\nline 2: token [secret] refused\nline 3");
  });

  test("a retrying wake can be dismissed; a wake nobody took says for how long", () => {
    const [retrying] = attentionList(
      input({ wakes: [wake({ state: "ready", attempts: 1, lastError: "HTTP 503" })] }),
    ).items;
    expect(retrying).toMatchObject({ reason: "delivery_retrying", detail: "HTTP 503", actions: ["dismiss", "open"] });
    const [untaken] = attentionList(
      input({ wakes: [wake({ state: "ready", attempts: 0, lastError: null, createdAt: NOW - 20 * MIN })] }),
    ).items;
    expect(untaken?.reason).toBe("wake_not_taken");
    expect(untaken?.detail).toMatch(/has been ready for 20m 0s and nothing took it/);
  });

  test("a waitpoint is stalled once its heartbeat is overdue, and only while armed", () => {
    const stalled = monitor({
      kind: "signal",
      waitpointId: "wp_a",
      heartbeatTimeoutMs: 5 * MIN,
      lastSignalAt: NOW - 7 * MIN,
    });
    const fresh = monitor({
      kind: "signal",
      waitpointId: "wp_b",
      heartbeatTimeoutMs: 5 * MIN,
      lastSignalAt: NOW - MIN,
    });
    const quiet = monitor({
      kind: "signal",
      waitpointId: "wp_c",
      heartbeatTimeoutMs: 5 * MIN,
      createdAt: NOW - 6 * MIN,
    });
    const { items } = attentionList(input({ monitors: [stalled, fresh, quiet] }));
    expect(items.map((item) => item.waitpointId)).toEqual(["wp_a", "wp_c"]);
    expect(items[0]).toMatchObject({
      reason: "waitpoint_stalled",
      detail: "stalled · last heartbeat 7m ago (heartbeat timeout 5m)",
      since: new Date(NOW - 2 * MIN).toISOString(),
      actions: ["cancel", "open"],
    });
    expect(items[1]?.detail).toBe("stalled · no heartbeat since armed 6m ago (heartbeat timeout 5m)");
  });

  test("a monitor in error since its first failed check; a paused one may be resumed", () => {
    const { items } = attentionList(
      input({
        monitors: [
          monitor({ name: "paused", state: "paused", lastError: "timeout", errorSince: NOW - 9 * MIN }),
          monitor({ name: "older", lastError: "exit 1", errorSince: NOW - 30 * MIN }),
          monitor({ name: "fine" }),
        ],
      }),
    );
    expect(items.map((item) => [item.title, item.since, item.actions])).toEqual([
      ["older", new Date(NOW - 30 * MIN).toISOString(), ["cancel", "open"]],
      ["paused", new Date(NOW - 9 * MIN).toISOString(), ["resume", "cancel", "open"]],
    ]);
  });

  test("one entry per monitor: its most urgent", () => {
    const errored = monitor({ lastError: "exit 1", errorSince: NOW - 30 * MIN });
    const list = attentionList(
      input({
        monitors: [errored],
        wakes: [wake({ monitorUid: errored.uid, monitorId: errored.monitorId, lastError: INTERRUPTED })],
      }),
    );
    expect(list.items.map((item) => item.reason)).toEqual(["needs_review"]);
    expect(list.monitorUids).toEqual([errored.uid]);
  });

  test("overload names monitors by their names, and is absent while checks keep up", () => {
    const [item] = attentionList(input({ checks: overloaded })).items;
    expect(item?.reason).toBe("overload");
    expect(item?.detail).toContain("nightly build 4.2 s");
    expect(item?.detail).not.toContain("mon-3");
    expect(attentionList(input()).items).toEqual([]);
  });

  test("devices in error, or unreachable with the error that says why; a quiet offline or a connected one needs nothing", () => {
    const { items } = attentionList(
      input({
        devices: [
          device({ name: "a", state: "offline" }),
          device({ name: "b" }),
          device({ name: "c", state: "connected" }),
          device({ name: "d", state: "offline", lastError: null }),
        ],
      }),
    );
    expect(items.map((item) => item.device)).toEqual(["a", "b"]);
    expect(items[0]).toEqual(
      expect.objectContaining({
        reason: "device_error",
        title: "a",
        detail: expect.stringContaining("Connection refused"),
      }),
    );
  });

  test("a waitpoint that failed or expired needs a look; other endings do not", () => {
    const { items } = attentionList(
      input({
        monitors: [
          monitor({
            waitpointId: "wp_x",
            endingReason: "timeout",
            endingAt: NOW - MIN,
            endingDetail: null,
            state: "finished",
          }),
          monitor({ endingReason: "failed", endingAt: NOW - MIN, state: "finished" }),
        ],
      }),
    );
    expect(items).toEqual([expect.objectContaining({ reason: "waitpoint_failed", detail: "the waitpoint expired" })]);
  });
});

describe("each entry leads with the human reason, an exact label and one primary action (#38 item 2)", () => {
  const only = (overrides: Partial<AttentionInput>) => {
    const [item] = attentionList(input(overrides)).items;
    if (!item) throw new Error("Expected one entry, got none");
    return item;
  };

  test("a failed waitpoint: its fail signal's message, labelled failed, Show", () => {
    const item = only({
      monitors: [
        monitor({
          kind: "signal",
          state: "ready",
          waitpointId: "wp_000000000010",
          endingReason: "failed",
          endingAt: NOW - MIN,
          endingDetail: "1 signal arrived (quorum 1, fail fast): fail",
          failMessage: "CUDA out of memory at step 1200",
        }),
      ],
    });
    expect([item.reason, item.label, item.headline, item.primary]).toEqual([
      "waitpoint_failed",
      "failed",
      "CUDA out of memory at step 1200",
      "open",
    ]);
    expect(item.detail).toBe("1 signal arrived (quorum 1, fail fast): fail");
  });

  test("an expired waitpoint is labelled expired, not failed", () => {
    const item = only({
      monitors: [
        monitor({
          kind: "signal",
          state: "ready",
          waitpointId: "wp_000000000011",
          endingReason: "timeout",
          endingAt: NOW - MIN,
          endingDetail: "no member reported before the deadline\n(quorum 1)",
        }),
      ],
    });
    expect([item.label, item.headline]).toEqual(["expired", "no member reported before the deadline"]);
  });

  test("a stalled waitpoint, armed or ended by fail fast: labelled stalled, its silence and last progress", () => {
    const armed = only({
      monitors: [
        monitor({
          kind: "signal",
          waitpointId: "wp_000000000012",
          heartbeatTimeoutMs: 5 * MIN,
          lastSignalAt: NOW - 12 * MIN,
          progressMessage: "step 1100 of 5000",
        }),
      ],
    });
    expect([armed.reason, armed.label, armed.headline, armed.primary]).toEqual([
      "waitpoint_stalled",
      "stalled",
      "no heartbeat for 12m (last progress: step 1100 of 5000)",
      "open",
    ]);
    const ended = only({
      monitors: [
        monitor({
          kind: "signal",
          state: "ready",
          waitpointId: "wp_000000000013",
          endingReason: "failed",
          endingAt: NOW - MIN,
          endingDetail: "stalled: no signal of any kind since the last signal at … (heartbeat timeout 300s)",
          lastSignalAt: NOW - 6 * MIN,
          progressMessage: "epoch 3",
        }),
      ],
    });
    // It ended (ranked with the failed ones), but what happened is a stall: 5m of silence when it ended.
    expect([ended.reason, ended.label, ended.headline]).toEqual([
      "waitpoint_failed",
      "stalled",
      "no heartbeat for 5m (last progress: epoch 3)",
    ]);
  });

  test("a failed check: its last output line and exit code; a paused one's primary is Resume", () => {
    const running = only({
      monitors: [monitor({ lastError: "exit 127: \nsh: 1: npm: not found\n\n", errorSince: NOW - MIN })],
    });
    expect([running.label, running.headline, running.primary]).toEqual([
      "checks failing",
      "sh: 1: npm: not found (exit 127)",
      "open",
    ]);
    const paused = only({ monitors: [monitor({ state: "paused", lastError: "Command check lost: helper died" })] });
    expect([paused.headline, paused.primary]).toEqual(["Command check lost: helper died", "resume"]);
  });

  test("a delivery that failed: the HTTP status and endpoint, Send again; not taken and retrying: Show", () => {
    const failed = only({ wakes: [wake({ lastError: "POST https://hooks.example/x answered 500\nbody: oops" })] });
    expect([failed.label, failed.headline, failed.primary]).toEqual([
      "delivery failed",
      "POST https://hooks.example/x answered 500",
      "retry",
    ]);
    const notTaken = only({
      wakes: [wake({ state: "ready", attempts: 0, lastError: null, createdAt: NOW - 20 * MIN })],
    });
    expect([notTaken.label, notTaken.primary]).toEqual(["not taken", "open"]);
    expect(notTaken.headline).toBe(
      "ready for 20m, not taken: no push adapter delivered it, the session did not claim it",
    );
    const unknown = only({ wakes: [wake({ lastError: INTERRUPTED })] });
    expect([unknown.label, unknown.primary]).toEqual(["delivery needs review", "retry"]);
  });

  test("a headline is one shielded line of at most 200 characters, never empty", () => {
    const long = only({ wakes: [wake({ lastError: `token hunter2 ${"x".repeat(400)}` })] });
    expect(long.headline).toHaveLength(200);
    expect(long.headline.startsWith("token [secret] x")).toBe(true);
    const secretMessage = only({
      monitors: [
        monitor({
          kind: "signal",
          state: "ready",
          waitpointId: "wp_000000000014",
          endingReason: "failed",
          endingAt: NOW - MIN,
          failMessage: "auth hunter2\trejected",
        }),
      ],
    });
    expect(secretMessage.headline).toBe("auth [secret] rejected");
    const empty = only({ monitors: [monitor({ lastError: "   \n" })] });
    expect(empty.headline).toBe(empty.title);
    const list = attentionList(input({ devices: [device()], checks: overloaded })).items;
    for (const item of list) expect(item.headline.length).toBeGreaterThan(0);
    expect(list.map((i) => [i.label, i.primary])).toEqual([
      ["device unreachable", null],
      ["checks running late", null],
    ]);
  });
});
