import { describe, expect, test } from "vitest";
import { ValidationError } from "../base/errors.js";
import {
  commandTimeoutSeconds,
  commandWaitTiming,
  intervalFloorSeconds,
  observationTiming,
  watchTiming,
} from "./timing.js";

describe("command wait timeout (design.md §3)", () => {
  test.each([
    [undefined, 300],
    [60, 60],
    [600, 600],
    [120, 120],
    [1, 300],
    [59, 300],
    [30, 300],
  ])("timeout %s → %s s", (given, expected) => {
    expect(commandTimeoutSeconds(given)).toBe(expected);
  });

  test.each([0, -5, 601, 3600, Number.NaN, Number.POSITIVE_INFINITY])("timeout %s is refused", (given) => {
    expect(() => commandTimeoutSeconds(given)).toThrow(ValidationError);
    expect(() => commandTimeoutSeconds(given)).toThrow(/Expected 60–600 seconds/);
  });
});

describe("command wait interval (until)", () => {
  test.each([
    // until, timeout → interval s, check timeout s
    [10, undefined, 10, 10],
    [1, undefined, 5, 5], // the 5 s floor
    [5, 300, 5, 5],
    [120, 300, 75, 30], // four intervals must fit 300 s; checks capped at 30 s
    [600, 60, 15, 15], // 60 / 4
    [3, 1, 5, 5], // timeout 1 ignored → 300; floor 5
    [20, 100, 20, 20],
  ])("until %s, timeout %s → every %s s, each check ≤ %s s", (until, timeout, interval, check) => {
    const timing = commandWaitTiming({ intervalSeconds: until, timeoutSeconds: timeout }, 5);
    expect(timing.intervalMs).toBe(interval * 1000);
    expect(timing.checkTimeoutMs).toBe(check * 1000);
    expect(timing.timeoutMs).toBeGreaterThanOrEqual(4 * (timing.intervalMs ?? 0));
  });

  test("each value raised or lowered is reported as asked, used and why", () => {
    expect(commandWaitTiming({ intervalSeconds: 2, timeoutSeconds: 30 }, 5).adjusted).toEqual([
      { field: "timeoutSeconds", asked: 30, used: 300, why: "deadlines under 60 s use the default 300 s" },
      { field: "intervalSeconds", asked: 2, used: 5, why: "the floor is 5 s" },
    ]);
    expect(commandWaitTiming({ intervalSeconds: 600, timeoutSeconds: 60 }, 5).adjusted).toEqual([
      { field: "intervalSeconds", asked: 600, used: 15, why: "at least 4 checks must fit the 60 s deadline" },
    ]);
    expect(commandWaitTiming({ intervalSeconds: 10 }, 5).adjusted).toBeUndefined();
  });

  test.each([undefined, 0, -1, Number.NaN])("until %s is refused naming the field", (until) => {
    expect(() => commandWaitTiming({ intervalSeconds: until }, 5)).toThrow(/intervalSeconds \(until\): Expected/);
  });

  test("the floor can only be lowered by the test knob, never raised or zeroed", () => {
    expect(intervalFloorSeconds(undefined)).toBe(5);
    expect(intervalFloorSeconds(0.2)).toBe(0.2);
    expect(intervalFloorSeconds(9)).toBe(5);
  });
});

describe("watch deadline", () => {
  test("defaults to an hour and refuses an interval", () => {
    expect(watchTiming({}).timeoutMs).toBe(3_600_000);
    expect(() => watchTiming({ intervalSeconds: 5 })).toThrow(/Expected none for a watch/);
    expect(() => watchTiming({ timeoutSeconds: 10 })).toThrow(/Expected 60–604800 seconds/);
  });
});

describe("observation monitors (tool, event, time, browser)", () => {
  test("interval 10–3600 s at the real floor; the test floor lowers it, never raises it", () => {
    const realFloor = intervalFloorSeconds(undefined);
    expect(observationTiming({}, realFloor).intervalMs).toBe(30_000);
    expect(() => observationTiming({ intervalSeconds: 5 }, realFloor)).toThrow(
      "intervalSeconds: Expected 10–3600, got 5",
    );
    expect(() => observationTiming({ intervalSeconds: 3601 }, realFloor)).toThrow(
      "intervalSeconds: Expected 10–3600, got 3601",
    );
    expect(observationTiming({ intervalSeconds: 0.5 }, intervalFloorSeconds(0.2)).intervalMs).toBe(500);
    expect(() => observationTiming({ intervalSeconds: 5 }, intervalFloorSeconds(60))).toThrow("Expected 10–3600");
  });
});
