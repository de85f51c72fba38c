/** Retry timing for failed deliveries, computed in one place. */
export interface RetryPolicy {
  /** Attempts in all (the first one included) before a wake becomes needs_review. */
  maxAttempts: number;
  baseMs: number;
  capMs: number;
}

function envNumber(name: string, fallback: number, min: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value >= min ? value : fallback;
}

export function retryPolicyFromEnv(): RetryPolicy {
  return {
    maxAttempts: envNumber("VIGIL_DELIVERY_MAX_ATTEMPTS", 8, 1),
    baseMs: envNumber("VIGIL_DELIVERY_RETRY_BASE_MS", 2000, 10),
    capMs: envNumber("VIGIL_DELIVERY_RETRY_CAP_MS", 10 * 60_000, 10),
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
