/**
 * The scheduler: one timer for the next due time across every monitor (no timer or loop per
 * monitor). When it fires, the engine ends what passed its deadline and starts what is due;
 * then the timer is set again for the earliest time left in the triggers table.
 *
 * Ticks can be kept a minimum gap apart: under load (hundreds of checks a second) the work due in
 * that gap is done in one tick — one query for what is due, one transaction for their leases, one
 * write to the spawner — instead of one tick per check. A lone due time is not moved by it.
 * Design: docs/design.md §3.
 */
export interface SchedulerHooks {
  /** The next time anything is due, or null. */
  nextAt(): number | null;
  /** Do everything due at `now`. */
  tick(now: number): void;
  now(): number;
}

const MAX_TIMEOUT = 2 ** 31 - 1;

export class Scheduler {
  #timer: NodeJS.Timeout | null = null;
  #armedFor: number | null = null;
  #lastTick = Number.NEGATIVE_INFINITY;
  #stopped = false;

  constructor(
    private readonly hooks: SchedulerHooks,
    /** Ticks are at least this many ms apart (0: each due time gets its own tick). */
    private readonly minGapMs = 0,
  ) {}

  /** Re-reads the next due time and sets the one timer (call after anything changes). */
  poke(): void {
    if (this.#stopped) return;
    const due = this.hooks.nextAt();
    const next = due === null ? null : Math.max(due, this.#lastTick + this.minGapMs);
    if (next === this.#armedFor && this.#timer !== null) return;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#armedFor = next;
    if (next === null) return;
    const delay = Math.min(Math.max(0, next - this.hooks.now()), MAX_TIMEOUT);
    this.#timer = setTimeout(() => this.#fire(), delay);
  }

  /** The time the single timer is set for (null when idle). */
  get armedFor(): number | null {
    return this.#armedFor;
  }

  #fire(): void {
    this.#timer = null;
    this.#armedFor = null;
    const now = this.hooks.now();
    this.#lastTick = now;
    try {
      this.hooks.tick(now);
    } finally {
      this.poke();
    }
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
