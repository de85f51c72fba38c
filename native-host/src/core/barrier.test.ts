import { describe, expect, test } from "vitest";
import { type BarrierInput, type BarrierSignal, deadlineNotice, decide, HOUR_MS, SETTLE_MS } from "./barrier.js";

const sig = (status: BarrierSignal["status"], member: string | null, receivedAt: number): BarrierSignal => ({
  status,
  member,
  receivedAt,
});
const base: BarrierInput = {
  members: null,
  quorum: 1,
  failFast: true,
  maxSignals: 1,
  pending: [],
  wakesSent: 0,
  wakeTimesLastHour: [],
  maxWakesPerHour: 12,
};

describe("decide", () => {
  test("progress alone never fires", () => {
    expect(decide({ ...base, pending: [sig("progress", null, 1)] })).toEqual({ fire: false, counted: 0 });
  });

  test("a one-shot fires at once on its first terminal signal and resolves", () => {
    expect(decide({ ...base, pending: [sig("ok", null, 100)] })).toMatchObject({
      fire: true,
      at: 100,
      final: true,
      reason: "met",
    });
  });

  test("a barrier of three with quorum 2 fires 3 s after the second distinct member", () => {
    const members = ["arm2", "arm6", "arm8"];
    const one = { ...base, members, quorum: 2, pending: [sig("ok", "arm2", 10), sig("ok", "arm2", 20)] };
    expect(decide(one)).toEqual({ fire: false, counted: 1 });
    const two = { ...one, pending: [...one.pending, sig("ok", "arm6", 30)] };
    expect(decide(two)).toMatchObject({ fire: true, at: 30 + SETTLE_MS, reason: "met", counted: 2 });
  });

  test("fail_fast fires on the first fail; without it the fail just counts", () => {
    const members = ["a", "b", "c"];
    const pending = [sig("fail", "a", 50)];
    expect(decide({ ...base, members, quorum: 3, pending })).toMatchObject({
      fire: true,
      at: 50 + SETTLE_MS,
      reason: "failed",
    });
    expect(decide({ ...base, members, quorum: 3, failFast: false, pending })).toEqual({ fire: false, counted: 1 });
  });

  test("a mailbox is final only on its max_signals-th wake", () => {
    const input = { ...base, maxSignals: 3, pending: [sig("ok", null, 5)] };
    expect(decide({ ...input, wakesSent: 1 })).toMatchObject({ fire: true, final: false });
    expect(decide({ ...input, wakesSent: 2 })).toMatchObject({ fire: true, final: true });
  });

  test("past the hourly cap the wake waits until the oldest of the hour's wakes is an hour old", () => {
    const times = Array.from({ length: 12 }, (_, i) => 1000 + i * 60_000);
    const decision = decide({
      ...base,
      maxSignals: 100,
      wakesSent: 12,
      pending: [sig("ok", null, 800_000)],
      wakeTimesLastHour: times,
    });
    expect(decision).toMatchObject({ fire: true, capped: true, at: 1000 + HOUR_MS });
  });
});

describe("deadline notice", () => {
  const notice = (over: Partial<Parameters<typeof deadlineNotice>[0]>) =>
    deadlineNotice({ members: null, quorum: 1, all: [], pending: [], wakesSent: 0, maxSignals: 1, ...over });

  test("says whether nobody reported, only heartbeats came, or only some members did", () => {
    expect(notice({})).toBe("nobody reported before the deadline");
    expect(notice({ all: [sig("progress", null, 1), sig("progress", null, 2)] })).toBe(
      "only heartbeats arrived (2 progress reports), no ok or fail",
    );
    expect(notice({ members: ["arm2", "arm6", "arm8"], quorum: 3, all: [sig("ok", "arm6", 1)] })).toBe(
      "only some members reported (arm6); still missing: arm2, arm8 (quorum 3)",
    );
    expect(notice({ quorum: 3, all: [sig("ok", null, 1)] })).toBe("only 1 of 3 required signals arrived");
    expect(notice({ maxSignals: 24, wakesSent: 5, pending: [sig("ok", null, 1)] })).toBe(
      "the waitpoint expired; it woke you 5 times, and 1 report below had not reached you yet",
    );
  });
});
