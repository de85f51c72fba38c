/**
 * Needs-you causes that arise from time passing reach an open panel (issue #38 item 8). A wake
 * becomes "not taken" WAKE_NOT_TAKEN_MS after it was made, with nothing else changing: no change
 * would tell the panel. So every change in a session (a wake is made in one) is followed, that long
 * later, by one more "changed" for the session, and the panel asks for it again. (A stalled
 * waitpoint needs nothing here: the daemon's stall sweep records it, and that is a change.) A
 * follow-up is not itself followed; follow-ups due within a second of each other are one.
 * Design: docs/design.md §7.
 */
import { envConfig } from "../base/config.js";
import { WAKE_NOT_TAKEN_MS } from "../core/attention.js";
import type { Changes } from "../core/changes.js";

/** When a ready wake nothing took becomes a Needs-you entry (VIGIL_WAKE_NOT_TAKEN_MS lowers it in tests). */
export const wakeNotTakenMs = (): number => envConfig().VIGIL_WAKE_NOT_TAKEN_MS ?? WAKE_NOT_TAKEN_MS;

/** Follow-ups due this close together are one. */
const MERGE_MS = 1_000;
/** A follow-up comes this much after the threshold, so the entry is there when the panel asks. */
const MARGIN_MS = 250;

export class AttentionClock {
  /** Per session, the follow-ups due (ascending). */
  readonly #due = new Map<string, number[]>();
  #timer: ReturnType<typeof setTimeout> | null = null;
  #firing = false;
  #off: (() => void) | null = null;

  constructor(
    private readonly changes: Changes,
    private readonly delayMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    // Progress reports alone make no wake, so none that could go untaken.
    this.#off ??= this.changes.on((sessionId, origin, kind) => {
      if (!this.#firing && origin === "local" && kind === "any")
        this.#add(sessionId, this.now() + this.delayMs + MARGIN_MS);
    });
  }

  stop(): void {
    this.#off?.();
    this.#off = null;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#due.clear();
  }

  /** How many follow-ups wait (tests). */
  get pending(): number {
    let n = 0;
    for (const times of this.#due.values()) n += times.length;
    return n;
  }

  #add(sessionId: string, at: number): void {
    const times = this.#due.get(sessionId) ?? [];
    const last = times.at(-1);
    if (last !== undefined && at - last < MERGE_MS) return;
    times.push(at);
    this.#due.set(sessionId, times);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    let next = Number.POSITIVE_INFINITY;
    for (const times of this.#due.values()) next = Math.min(next, times[0] ?? next);
    if (next === Number.POSITIVE_INFINITY) return;
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, next - this.now()));
    this.#timer.unref?.();
  }

  #fire(): void {
    const now = this.now();
    this.#firing = true;
    try {
      for (const [sessionId, times] of this.#due) {
        let due = 0;
        while (due < times.length && (times[due] as number) <= now) due++;
        if (due === 0) continue;
        times.splice(0, due);
        if (times.length === 0) this.#due.delete(sessionId);
        this.changes.emit(sessionId);
      }
    } finally {
      this.#firing = false;
    }
    this.#schedule();
  }
}
