import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { nextCheckAt, PHASE_WINDOW_CAP_MS, phaseOffsetMs } from "./cadence.js";

const T0 = 1_800_000_000_000;

describe("cadence of repeat checks", () => {
  test("after the first check at arming, the second comes one interval plus the phase later, then every interval", () => {
    const monitor = { uid: 7, createdAt: T0, intervalMs: 5000 };
    const phase = phaseOffsetMs(7, 5000);
    expect(phase).toBeGreaterThan(0);
    const second = nextCheckAt(monitor, T0, T0 + 40);
    expect(second).toBe(T0 + phase + 5000);
    const third = nextCheckAt(monitor, second, second + 30);
    expect(third - second).toBe(5000);
  });

  test("a thousand monitors armed together start their checks spread across the interval", () => {
    const seconds = Array.from({ length: 1000 }, (_, i) =>
      nextCheckAt({ uid: i + 1, createdAt: T0, intervalMs: 5000 }, T0, T0 + 1),
    );
    // Bucketed by 50 ms, no slot gets more than a little over its even share (10 per 50 ms).
    const buckets = new Map<number, number>();
    for (const at of seconds)
      buckets.set(Math.floor((at - T0) / 50), (buckets.get(Math.floor((at - T0) / 50)) ?? 0) + 1);
    expect(buckets.size).toBe(100);
    expect(Math.max(...buckets.values())).toBeLessThanOrEqual(12);
  });

  test("a slot that already passed is skipped, keeping the monitor's phase", () => {
    const monitor = { uid: 3, createdAt: T0, intervalMs: 5000 };
    const second = nextCheckAt(monitor, T0, T0);
    // The second check started 12 s late: the next one is the first slot after now, on the grid.
    const third = nextCheckAt(monitor, second, second + 12_000);
    expect(third).toBe(second + 15_000);
  });

  test("a resumed monitor (checked at once, off its grid) returns to its grid", () => {
    const monitor = { uid: 11, createdAt: T0, intervalMs: 10_000 };
    const anchor = T0 + phaseOffsetMs(11, 10_000);
    const resumedAt = anchor + 123_456;
    const next = nextCheckAt(monitor, resumedAt, resumedAt + 200);
    expect((next - anchor) % 10_000).toBe(0);
    expect(next).toBeGreaterThan(resumedAt);
    expect(next - resumedAt).toBeLessThanOrEqual(10_000);
  });

  test("properties: on the grid, never before now, never more than one interval (plus the phase once) after the due check", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.integer({ min: 100, max: 3_600_000 }),
        fc.integer({ min: 0, max: 100_000_000 }),
        fc.integer({ min: 0, max: 10_000_000 }),
        (uid, intervalMs, dueOffset, lateBy) => {
          const monitor = { uid, createdAt: T0, intervalMs };
          const phase = phaseOffsetMs(uid, intervalMs);
          expect(phase).toBeGreaterThanOrEqual(0);
          expect(phase).toBeLessThan(Math.min(intervalMs, PHASE_WINDOW_CAP_MS));
          const dueAt = T0 + dueOffset;
          const now = dueAt + lateBy;
          const next = nextCheckAt(monitor, dueAt, now);
          expect(next).toBeGreaterThanOrEqual(now);
          expect(next).toBeGreaterThan(dueAt);
          expect((next - T0 - phase) % intervalMs).toBe(0);
          // At most one interval after the due check or now, whichever is later, plus the phase
          // while the monitor has not reached its grid yet (the second check).
          const onGrid = dueAt >= T0 + phase;
          expect(next - Math.max(dueAt, now)).toBeLessThanOrEqual(intervalMs + (onGrid ? 0 : phase));
        },
      ),
    );
  });
});
