/**
 * The signal route's miss budget (design.md §5, §8): unknown ids and wrong secrets, counted per
 * waitpoint id, with all unknown ids sharing one count. A spent budget only changes how a *miss* is
 * answered (429 instead of 401/404) — a correct secret is never refused because of someone else's
 * misses. Sliding window; each count keeps at most its newest `misses` times, so memory is bounded
 * by the number of ids that missed within the window.
 */
export const MISS_BUDGET = { misses: 60, windowMs: 60_000 };

/** The shared count for ids that name no waitpoint (probing). */
export const UNKNOWN_IDS = "";

export class MissBudget {
  readonly #times = new Map<string, number[]>();

  constructor(
    private readonly now: () => number,
    private readonly budget = MISS_BUDGET,
  ) {}

  /** Counts one miss against `key`; true when this miss is over the budget (answer 429). */
  note(key: string): boolean {
    const at = this.now();
    this.#prune(at);
    const times = this.#times.get(key) ?? [];
    const over = times.length >= this.budget.misses;
    times.push(at);
    if (times.length > this.budget.misses) times.shift();
    this.#times.set(key, times);
    return over;
  }

  /** True while `key`'s budget is spent. */
  spent(key: string): boolean {
    this.#prune(this.now());
    return (this.#times.get(key)?.length ?? 0) >= this.budget.misses;
  }

  #prune(at: number): void {
    const since = at - this.budget.windowMs;
    for (const [key, times] of this.#times) {
      while (times.length > 0 && (times[0] as number) <= since) times.shift();
      if (times.length === 0) this.#times.delete(key);
    }
  }
}
