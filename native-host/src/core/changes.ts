/**
 * "Something in this session changed": wakes long-polls, pokes delivery, feeds live views.
 * Design: docs/design.md §1, §7.
 */
/** Where a change was made: here, or on another host of the team (heard through the team link). */
export type ChangeOrigin = "local" | "remote";
/**
 * What changed: anything (`any`), or only plain progress reports were stored (`progress`) — no wake
 * made, no due time moved, nothing new that needs the person — which what shows a session (its
 * long-polls, the side panel) follows, and delivery, the check schedulers and the notifications
 * need not look at: under a stream of progress reports they would look once per commit for nothing.
 */
export type ChangeKind = "any" | "progress";
export type ChangeListener = (sessionId: string, origin: ChangeOrigin, kind: ChangeKind) => void;

export class Changes {
  readonly #listeners = new Set<ChangeListener>();
  /** The pending `next` calls, each resolved by `wakeWaiters` too. */
  readonly #waiters = new Set<() => void>();

  on(listener: ChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(sessionId: string, origin: ChangeOrigin = "local", kind: ChangeKind = "any"): void {
    for (const listener of this.#listeners) listener(sessionId, origin, kind);
  }

  /**
   * Every pending `next` resolves now, so each waiter looks again (team mode: a change another
   * host made may have gone unheard). Listeners are not called: nothing is known to have changed.
   */
  wakeWaiters(): void {
    for (const wake of [...this.#waiters]) wake();
  }

  /** Resolves at the next change in `sessionId`, or after `ms`, or when `signal` aborts. */
  next(sessionId: string, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        off();
        this.#waiters.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      const off = this.on((sid) => {
        if (sid === sessionId) done();
      });
      signal?.addEventListener("abort", done, { once: true });
      this.#waiters.add(done);
    });
  }
}
