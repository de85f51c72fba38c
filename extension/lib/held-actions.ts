/**
 * Undo (issue #38 item 5): Dismiss, Clear ended and Cancel are held here, in the background worker,
 * for UNDO_MS before they are sent to the daemon; Undo drops them unsent. The worker, not the panel,
 * holds them, so a panel closed meanwhile does not take the action back: it is sent when its time
 * is up. Nothing reaches the daemon (nor the agent) before then, so an undo has nothing to revert.
 * Design: docs/design.md §7.
 */
import type { PanelRequest } from "./panel-protocol";

/** How long an action can be undone before it is sent. */
export const UNDO_MS = 5_000;

export class HeldActions {
  readonly #held = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(
    private readonly send: (request: PanelRequest) => Promise<unknown>,
    /** After an action was sent: its key, and the first error (null: all went through). */
    private readonly onSent: (key: string, error: string | null) => void,
  ) {}

  /** Holds these requests under `key` (a held action of the same key is replaced), sent after `ms`. */
  hold(key: string, requests: PanelRequest[], ms = UNDO_MS): void {
    this.undo(key);
    const timer = setTimeout(async () => {
      this.#held.delete(key);
      const results = await Promise.allSettled(requests.map((request) => this.send(request)));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
      this.onSent(key, failed ? String((failed.reason as Error)?.message ?? failed.reason) : null);
    }, ms);
    this.#held.set(key, timer);
  }

  /** Drops a held action unsent; false if it was sent already (or never held). */
  undo(key: string): boolean {
    const timer = this.#held.get(key);
    if (timer === undefined) return false;
    clearTimeout(timer);
    this.#held.delete(key);
    return true;
  }

  /** The keys still held (the browser suite reads them). */
  keys(): string[] {
    return [...this.#held.keys()];
  }
}
