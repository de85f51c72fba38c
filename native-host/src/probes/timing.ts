/**
 * Interval and deadline rules, pure (design.md §3 for command waits and watches).
 */

import type { Adjustment } from "../../../shared/schemas/views.js";
import { envConfig } from "../base/config.js";
import { ValidationError } from "../base/errors.js";

export interface Timing {
  /** Poll interval; null for streamed sources. */
  intervalMs: number | null;
  timeoutMs: number;
  /** How long one check may run before it is killed. */
  checkTimeoutMs: number;
  /** Values raised or lowered from what was asked (the create reply reports them). */
  adjusted?: Adjustment[];
}

export const COMMAND_RULES = {
  intervalFloorSeconds: 5,
  defaultTimeoutSeconds: 300,
  minTimeoutSeconds: 60,
  maxTimeoutSeconds: 600,
  minIntervalsPerDeadline: 4,
  checkTimeoutFloorSeconds: 5,
  checkTimeoutCeilingSeconds: 30,
} as const;

const clamp = (value: number, min: number, max: number) => Math.min(Math.max(value, min), max);

/**
 * The 5 s floor, lowerable only through `VIGIL_INTERVAL_FLOOR_SECONDS` so integration tests can
 * exercise the same machinery in milliseconds; the rules themselves are unit-tested at 5 s.
 */
export function intervalFloorSeconds(configured = envConfig().VIGIL_INTERVAL_FLOOR_SECONDS): number {
  return configured !== undefined && configured < COMMAND_RULES.intervalFloorSeconds
    ? configured
    : COMMAND_RULES.intervalFloorSeconds;
}

/**
 * timeout: absent → 300; 60–600 → as given; 1–59 → ignored (300); anything else refused.
 */
export function commandTimeoutSeconds(timeout: number | undefined): number {
  const r = COMMAND_RULES;
  if (timeout === undefined) return r.defaultTimeoutSeconds;
  if (!Number.isFinite(timeout) || timeout < 1 || timeout > r.maxTimeoutSeconds) {
    throw new ValidationError(
      `timeoutSeconds: Expected ${r.minTimeoutSeconds}–${r.maxTimeoutSeconds} seconds (1–59 use the default ${r.defaultTimeoutSeconds}), got ${timeout}`,
    );
  }
  return timeout < r.minTimeoutSeconds ? r.defaultTimeoutSeconds : Math.round(timeout);
}

/**
 * until: required; raised to the 5 s floor; lowered so at least four intervals fit the deadline.
 * Each check may run for the interval bounded to 5–30 s.
 */
export function commandWaitTiming(
  input: { intervalSeconds?: number; timeoutSeconds?: number },
  floor = intervalFloorSeconds(),
): Timing {
  const r = COMMAND_RULES;
  const until = input.intervalSeconds;
  if (until === undefined || !Number.isFinite(until) || until <= 0) {
    throw new ValidationError(
      `intervalSeconds (until): Expected a poll interval in seconds (floor ${floor}), got ${until ?? "nothing"}`,
    );
  }
  const timeoutSeconds = commandTimeoutSeconds(input.timeoutSeconds);
  const intervalSeconds = clamp(until, floor, timeoutSeconds / r.minIntervalsPerDeadline);
  const adjusted: Adjustment[] = [];
  const asked = input.timeoutSeconds;
  if (asked !== undefined && asked !== timeoutSeconds) {
    adjusted.push({
      field: "timeoutSeconds",
      asked,
      used: timeoutSeconds,
      why:
        asked < r.minTimeoutSeconds
          ? `deadlines under ${r.minTimeoutSeconds} s use the default ${r.defaultTimeoutSeconds} s`
          : "rounded to whole seconds",
    });
  }
  if (intervalSeconds !== until) {
    adjusted.push({
      field: "intervalSeconds",
      asked: until,
      used: intervalSeconds,
      why:
        intervalSeconds > until
          ? `the floor is ${floor} s`
          : `at least ${r.minIntervalsPerDeadline} checks must fit the ${timeoutSeconds} s deadline`,
    });
  }
  const checkSeconds = clamp(
    intervalSeconds,
    Math.min(floor, r.checkTimeoutFloorSeconds),
    r.checkTimeoutCeilingSeconds,
  );
  return {
    intervalMs: Math.round(intervalSeconds * 1000),
    timeoutMs: timeoutSeconds * 1000,
    checkTimeoutMs: Math.round(checkSeconds * 1000),
    ...(adjusted.length > 0 ? { adjusted } : {}),
  };
}

export const WATCH_RULES = { defaultTimeoutSeconds: 3600, minTimeoutSeconds: 60, maxTimeoutSeconds: 7 * 24 * 3600 };

/** A watch has no interval; its deadline defaults to an hour, 60 s – 7 days. */
export function watchTiming(input: { intervalSeconds?: number; timeoutSeconds?: number }): Timing {
  const r = WATCH_RULES;
  if (input.intervalSeconds !== undefined) {
    throw new ValidationError(`intervalSeconds: Expected none for a watch (it streams), got ${input.intervalSeconds}`);
  }
  const timeout = input.timeoutSeconds ?? r.defaultTimeoutSeconds;
  if (!Number.isFinite(timeout) || timeout < r.minTimeoutSeconds || timeout > r.maxTimeoutSeconds) {
    throw new ValidationError(
      `timeoutSeconds: Expected ${r.minTimeoutSeconds}–${r.maxTimeoutSeconds} seconds for a watch, got ${timeout}`,
    );
  }
  return { intervalMs: null, timeoutMs: Math.round(timeout * 1000), checkTimeoutMs: 0 };
}

export const OBSERVATION_RULES = {
  minIntervalSeconds: 10,
  maxIntervalSeconds: 3600,
  defaultIntervalSeconds: 30,
  minTimeoutSeconds: 30,
  maxTimeoutSeconds: 7 * 24 * 3600,
  defaultTimeoutSeconds: 30 * 60,
  checkTimeoutCeilingSeconds: 30,
} as const;

/** Observation monitors (tool, event, time, browser): interval 10–3600 s, deadline 30 s – 7 days. */
export function observationTiming(
  input: { intervalSeconds?: number; timeoutSeconds?: number },
  commandFloor = intervalFloorSeconds(),
): Timing {
  const r = OBSERVATION_RULES;
  const interval = input.intervalSeconds ?? r.defaultIntervalSeconds;
  // Lowered only with the command floor (integration and browser tests), never raised.
  const floor = commandFloor < COMMAND_RULES.intervalFloorSeconds ? commandFloor : r.minIntervalSeconds;
  if (!Number.isFinite(interval) || interval < floor || interval > r.maxIntervalSeconds) {
    throw new ValidationError(`intervalSeconds: Expected ${floor}–${r.maxIntervalSeconds}, got ${interval}`);
  }
  const timeout = input.timeoutSeconds ?? r.defaultTimeoutSeconds;
  if (!Number.isFinite(timeout) || timeout < r.minTimeoutSeconds || timeout > r.maxTimeoutSeconds) {
    throw new ValidationError(
      `timeoutSeconds: Expected ${r.minTimeoutSeconds}–${r.maxTimeoutSeconds} seconds (30 s – 7 days), got ${timeout}`,
    );
  }
  return {
    intervalMs: Math.round(interval * 1000),
    timeoutMs: Math.round(timeout * 1000),
    checkTimeoutMs: Math.min(interval, r.checkTimeoutCeilingSeconds) * 1000,
  };
}
