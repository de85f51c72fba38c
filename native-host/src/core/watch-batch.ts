/**
 * A watch's events, between its process and its wakes (design.md §3): lines within 200 ms are one
 * wake, and more than 60 events in a sliding minute stops the watch — a flood is a mistake in the
 * filter, and stopping says so rather than hiding it.
 */
export const BATCH_WINDOW_MS = 200;
export const RATE_LIMIT = { events: 60, windowMs: 60_000 };

export interface WatchBatchHooks {
  now(): number;
  /** Persist one event. */
  record(line: string): void;
  /** The batch window closed: one wake for the events recorded since the last one. */
  flush(): void;
  /** The 61st event in a minute arrived. */
  rateLimited(): void;
}

export class WatchBatch {
  #recent: number[] = [];
  #timer: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(private readonly hooks: WatchBatchHooks) {}

  line(text: string): void {
    if (this.#closed) return;
    const now = this.hooks.now();
    this.#recent = this.#recent.filter((at) => at > now - RATE_LIMIT.windowMs);
    if (this.#recent.length >= RATE_LIMIT.events) {
      this.close();
      this.hooks.rateLimited();
      return;
    }
    this.#recent.push(now);
    this.hooks.record(text);
    this.#timer ??= setTimeout(() => {
      this.#timer = null;
      if (!this.#closed) this.hooks.flush();
    }, BATCH_WINDOW_MS);
  }

  /** No more wakes from this batch: the ending wake carries whatever is pending. */
  close(): void {
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
