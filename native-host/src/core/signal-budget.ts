/**
 * The per-waitpoint budget of accepted signals (design.md §5, §8; issue #37 finding 5): one job
 * holding a waitpoint's secret cannot store signals faster than the `waitpointSignalsPerMinute`
 * setting (default 60, bursts of 30) allows. A token
 * bucket per waitpoint and kind of signal — progress reports and endings (ok/fail) each have their
 * own, so a flood of progress never delays the job's final "ok" — refilled at `perMinute`, holding
 * at most `burst`. A signal past it is not stored: it is answered 429 with the seconds until a token
 * is back (`Retry-After`), which `vigil signal` honours, and a spool or device file waits for the
 * next sweep. Memory holds one entry per waitpoint that signalled recently (a full bucket is dropped).
 */
export interface SignalBudgetLimits {
  perMinute: number;
  burst: number;
}

/** The budget for a `waitpointSignalsPerMinute` setting (default 60): bursts of half of it. */
export const signalBudgetOf = (perMinute: number): SignalBudgetLimits => ({
  perMinute,
  burst: Math.max(1, Math.floor(perMinute / 2)),
});

export type SignalKind = "progress" | "ending";

interface Bucket {
  tokens: number;
  at: number;
}

export class SignalBudget {
  readonly #buckets = new Map<string, Bucket>();
  readonly #msPerToken: number;

  constructor(
    private readonly now: () => number,
    readonly budget: SignalBudgetLimits,
  ) {
    this.#msPerToken = 60_000 / budget.perMinute;
  }

  /** Takes one token for this waitpoint's signal: 0 when it may be stored, else the ms until it may. */
  take(waitpointId: string, kind: SignalKind): number {
    const now = this.now();
    if (this.#buckets.size > 1000) this.#forgetFull(now);
    const key = `${kind}:${waitpointId}`;
    const bucket = this.#refilled(this.#buckets.get(key), now);
    if (bucket.tokens >= 1) {
      this.#buckets.set(key, { tokens: bucket.tokens - 1, at: now });
      return 0;
    }
    this.#buckets.set(key, bucket);
    return Math.ceil((1 - bucket.tokens) * this.#msPerToken);
  }

  /** Gives back a token `take` handed out for a signal that was not stored after all (its transaction rolled back). */
  refund(waitpointId: string, kind: SignalKind): void {
    const key = `${kind}:${waitpointId}`;
    const bucket = this.#buckets.get(key);
    if (bucket) this.#buckets.set(key, { tokens: Math.min(this.budget.burst, bucket.tokens + 1), at: bucket.at });
  }

  /** The tokens of one transaction: taken as its signals are accepted, given back when it rolls back or runs again. */
  takes(): BudgetTakes {
    return new BudgetTakes(this);
  }

  #refilled(bucket: Bucket | undefined, now: number): Bucket {
    if (!bucket) return { tokens: this.budget.burst, at: now };
    const tokens = Math.min(this.budget.burst, bucket.tokens + (now - bucket.at) / this.#msPerToken);
    return { tokens, at: now };
  }

  #forgetFull(now: number): void {
    for (const [key, bucket] of this.#buckets) {
      if (this.#refilled(bucket, now).tokens >= this.budget.burst) this.#buckets.delete(key);
    }
  }
}

/**
 * What one transaction took from the budget. A transaction that rolls back (a group commit that
 * failed and is committed again signal by signal, a deadlock retried on PostgreSQL) stored nothing,
 * so its tokens are given back and each signal is counted once, by the attempt that stores it.
 */
export class BudgetTakes {
  readonly #taken: Array<{ waitpointId: string; kind: SignalKind }> = [];

  constructor(private readonly budget: SignalBudget) {}

  take(waitpointId: string, kind: SignalKind): number {
    const waitMs = this.budget.take(waitpointId, kind);
    if (waitMs === 0) this.#taken.push({ waitpointId, kind });
    return waitMs;
  }

  /** Gives back one token taken for this waitpoint (its signal turned out a duplicate: nothing stored). */
  giveBack(waitpointId: string, kind: SignalKind): void {
    const i = this.#taken.findIndex((taken) => taken.waitpointId === waitpointId && taken.kind === kind);
    if (i < 0) return;
    this.#taken.splice(i, 1);
    this.budget.refund(waitpointId, kind);
  }

  /** Gives back everything taken so far (the attempt that took it did not commit). */
  undo(): void {
    for (const { waitpointId, kind } of this.#taken.splice(0)) this.budget.refund(waitpointId, kind);
  }
}
