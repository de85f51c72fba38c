/**
 * Retry timing for failed deliveries, computed in one place.
 * Design: docs/design.md §6.
 */
import { envConfig } from "../base/config.js";
export interface RetryPolicy {
  /** Attempts in all (the first one included) before a wake becomes needs_review. */
  maxAttempts: number;
  baseMs: number;
  capMs: number;
}

/** 8 attempts, 2 s doubling to 10 min (each lowerable through base/config.ts for tests). */
export function retryPolicyFromEnv(): RetryPolicy {
  const env = envConfig();
  return {
    maxAttempts: env.VIGIL_DELIVERY_MAX_ATTEMPTS ?? 8,
    baseMs: env.VIGIL_DELIVERY_RETRY_BASE_MS ?? 2000,
    capMs: env.VIGIL_DELIVERY_RETRY_CAP_MS ?? 10 * 60_000,
  };
}

/**
 * Delay before the next attempt after `attempts` failures: base·2^(n-1), capped, with ±20 %
 * jitter so many sessions failing together do not retry in lockstep.
 */
export function retryDelayMs(attempts: number, policy: RetryPolicy, random = Math.random): number {
  const exponential = Math.min(policy.capMs, policy.baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(exponential * (0.8 + 0.4 * random()));
}
