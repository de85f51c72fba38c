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
  nextAt(): Promise<number | null> | number | null;
  /** Do everything due at `now`. */
  tick(now: number): Promise<void> | void;
  now(): number;
  /** A tick or a look at the next due time failed (it is tried again RETRY_MS later). */
  onError?(error: unknown): void;
}

const MAX_TIMEOUT = 2 ** 31 - 1;
/** After a failed look or tick (the store unreachable, say), the scheduler looks again this much later. */
export const RETRY_MS = 1000;

const isPromise = <T>(value: T | Promise<T>): value is Promise<T> =>
  typeof (value as { then?: unknown } | null)?.then === "function";

export class Scheduler {
  #timer: NodeJS.Timeout | null = null;
  #armedFor: number | null = null;
  #lastTick = Number.NEGATIVE_INFINITY;
  #stopped = false;
  /** A look at the next due time, or a tick, is in progress: a poke meanwhile only asks for another look. */
  #looking = false;
  #ticking = false;
  #again = false;

  constructor(
    private readonly hooks: SchedulerHooks,
    /** Ticks are at least this many ms apart (0: each due time gets its own tick). */
    private readonly minGapMs = 0,
  ) {}

  /**
   * Re-reads the next due time and sets the one timer (call after anything changes). Pokes that
   * come while the store is being read, or while a tick runs, make one more read after it.
   */
  poke(): void {
    if (this.#stopped) return;
    if (this.#looking || this.#ticking) {
      this.#again = true;
      return;
    }
    let due: Promise<number | null> | number | null;
    try {
      due = this.hooks.nextAt();
    } catch (error) {
      this.#failed(error);
      return;
    }
    if (!isPromise(due)) {
      this.#arm(due);
      return;
    }
    this.#looking = true;
    due.then(
      (at) => this.#looked(() => this.#arm(at)),
      (error) => this.#looked(() => this.#failed(error)),
    );
  }

  #looked(then: () => void): void {
    this.#looking = false;
    if (this.#stopped) return;
    then();
    if (this.#again) {
      this.#again = false;
      this.poke();
    }
  }

  #failed(error: unknown): void {
    this.hooks.onError?.(error);
    this.#arm(this.hooks.now() + RETRY_MS);
  }

  #arm(due: number | null): void {
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
    if (this.#ticking) {
      this.#again = true;
      return;
    }
    const now = this.hooks.now();
    this.#lastTick = now;
    let ticked: Promise<void> | void;
    try {
      ticked = this.hooks.tick(now);
    } catch (error) {
      this.#failed(error);
      return;
    }
    if (!isPromise(ticked)) {
      this.poke();
      return;
    }
    this.#ticking = true;
    ticked.then(
      () => this.#ticked(null),
      (error) => this.#ticked(error),
    );
  }

  #ticked(error: unknown): void {
    this.#ticking = false;
    this.#again = false;
    if (this.#stopped) return;
    if (error !== null) this.#failed(error);
    else this.poke();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
