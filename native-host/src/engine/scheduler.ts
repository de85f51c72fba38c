/**
 * The scheduler: one timer for the next due time across every monitor (no timer or loop per
 * monitor). When it fires, the engine ends what passed its deadline and starts what is due;
 * then the timer is set again for the earliest time left in the triggers table.
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
  #stopped = false;

  constructor(private readonly hooks: SchedulerHooks) {}

  /** Re-reads the next due time and sets the one timer (call after anything changes). */
  poke(): void {
    if (this.#stopped) return;
    const next = this.hooks.nextAt();
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
    try {
      this.hooks.tick(this.hooks.now());
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
