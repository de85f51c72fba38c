import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { nextCheckAt, PHASE_WINDOW_CAP_MS, phaseOffsetMs, SPREAD_PER_MONITOR_MS, spreadWindowMs } from "./cadence.js";

const T0 = 1_800_000_000_000;
const check = (uid: number, dueAt: number, now: number, first: boolean, polledMonitors: number, intervalMs = 5000) =>
  nextCheckAt({ uid, intervalMs, dueAt, now, first, polledMonitors });

describe("cadence of repeat checks", () => {
  test("a wait armed on its own keeps its plain cadence: every interval, the second check moved by under 25 ms", () => {
    const second = check(7, T0, T0 + 40, true, 1);
    expect(second - (T0 + 5000)).toBeGreaterThanOrEqual(0);
    expect(second - (T0 + 5000)).toBeLessThan(SPREAD_PER_MONITOR_MS);
    expect(check(7, second, second + 30, false, 1)).toBe(second + 5000);
  });

  test("a thousand waits armed together start their second checks spread across the whole interval", () => {
    const seconds = Array.from({ length: 1000 }, (_, i) => check(i + 1, T0, T0 + 1, true, 1000));
    const buckets = new Map<number, number>();
    for (const at of seconds) {
      const bucket = Math.floor((at - T0 - 5000) / 50);
      buckets.set(bucket, (buckets.get(bucket) ?? 0) + 1);
    }
    // 100 buckets of 50 ms over the 5 s, none holding much more than its even share of 10.
    expect(buckets.size).toBe(100);
    expect(Math.max(...buckets.values())).toBeLessThanOrEqual(12);
  });

  test("the phase is added once: later arrivals (a bigger window) never move a monitor's checks", () => {
    const second = check(5, T0, T0 + 10, true, 40);
    expect(check(5, second, second + 10, false, 4000)).toBe(second + 5000);
    expect(check(5, second, second + 10, false, 1)).toBe(second + 5000);
  });

  test("the window grows with the armed count, up to the interval and a minute", () => {
    expect(spreadWindowMs(5000, 1)).toBe(SPREAD_PER_MONITOR_MS);
    expect(spreadWindowMs(5000, 100)).toBe(100 * SPREAD_PER_MONITOR_MS);
    expect(spreadWindowMs(5000, 10_000)).toBe(5000);
    expect(spreadWindowMs(3_600_000, 10_000)).toBe(PHASE_WINDOW_CAP_MS);
  });

  test("a slot that already passed is skipped, keeping the monitor's phase", () => {
    const second = check(3, T0, T0, true, 500);
    // The second check was recorded 12 s after it was due: the next is the first slot from now.
    expect(check(3, second, second + 12_000, false, 500)).toBe(second + 15_000);
  });

  test("properties: never less than an interval after the due check, never before now, no slot skipped that had not passed", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.integer({ min: 100, max: 3_600_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 100_000_000 }),
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.boolean(),
        (uid, intervalMs, polled, dueOffset, lateBy, first) => {
          const window = spreadWindowMs(intervalMs, polled);
          const phase = first ? phaseOffsetMs(uid, window) : 0;
          expect(phase).toBeGreaterThanOrEqual(0);
          expect(phase).toBeLessThanOrEqual(Math.max(0, window - 1));
          const dueAt = T0 + dueOffset;
          const now = dueAt + lateBy;
          const next = check(uid, dueAt, now, first, polled, intervalMs);
          expect(next).toBeGreaterThanOrEqual(now);
          expect(next - dueAt).toBeGreaterThanOrEqual(intervalMs);
          expect((next - dueAt - phase) % intervalMs).toBe(0);
          expect(next - Math.max(dueAt + intervalMs + phase, now)).toBeLessThan(intervalMs);
        },
      ),
    );
  });
});
