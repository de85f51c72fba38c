/**
 * When the person gets a browser notification (issue #26): something newly needs them, at most one
 * notification a minute per session (what arrives meanwhile waits for the next one), never for
 * what they did themselves in the panel (an action on the same monitor or wake in the last two
 * minutes). The first list after start-up is what already needed them: remembered, not notified.
 * Pure: the background worker (lib/background-attention.ts) shows what this decides.
 * Design: docs/design.md §7.
 */
import type { AttentionItem } from "../../shared/schemas/native-messages";
import { attentionKey } from "./panel-attention";

export const NOTIFY_EVERY_MS = 60_000;
export const OWN_ACTION_MS = 120_000;

/** One notification: the session it is about and the entries it tells of (the first named). */
export interface Notice {
  id: string;
  session: string | null;
  items: AttentionItem[];
}

export class AttentionNotifier {
  /** Entries already told of (or present at start-up), by attentionKey. */
  readonly #told = new Set<string>();
  readonly #lastAt = new Map<string, number>();
  /** The person's own actions: "sessionId/monitorId" or "sessionId/wakeId" → when. */
  readonly #own = new Map<string, number>();
  #primed = false;

  /** The panel did something to this monitor or wake: what follows from it is not news. */
  acted(sessionId: string, ref: string, now: number): void {
    this.#own.set(`${sessionId}/${ref}`, now);
  }

  /** The notifications due now for this attention list (none the first time). */
  update(attention: AttentionItem[], now: number): Notice[] {
    const present = new Set(attention.map(attentionKey));
    for (const key of [...this.#told]) if (!present.has(key)) this.#told.delete(key);
    if (!this.#primed) {
      this.#primed = true;
      for (const key of present) this.#told.add(key);
      return [];
    }
    const fresh = new Map<string, AttentionItem[]>();
    for (const item of attention) {
      const key = attentionKey(item);
      if (this.#told.has(key)) continue;
      if (this.#isOwn(item, now)) {
        this.#told.add(key);
        continue;
      }
      const session = item.sessionId ?? "";
      fresh.set(session, [...(fresh.get(session) ?? []), item]);
    }
    const notices: Notice[] = [];
    for (const [session, items] of fresh) {
      const last = this.#lastAt.get(session);
      if (last !== undefined && now - last < NOTIFY_EVERY_MS) continue;
      this.#lastAt.set(session, now);
      for (const item of items) this.#told.add(attentionKey(item));
      notices.push({ id: `vigil:${attentionKey(items[0] as AttentionItem)}`, session: session || null, items });
    }
    return notices;
  }

  /** When entries held back by the one-a-minute rule may be told of: the earliest such time, or null. */
  nextDue(attention: AttentionItem[], now: number): number | null {
    let due: number | null = null;
    for (const item of attention) {
      if (this.#told.has(attentionKey(item))) continue;
      const last = this.#lastAt.get(item.sessionId ?? "");
      const at = last === undefined ? now : last + NOTIFY_EVERY_MS;
      due = due === null ? at : Math.min(due, at);
    }
    return due;
  }

  #isOwn(item: AttentionItem, now: number): boolean {
    for (const ref of [item.monitorId, item.wakeId, item.waitpointId]) {
      if (!ref || !item.sessionId) continue;
      const at = this.#own.get(`${item.sessionId}/${ref}`);
      if (at !== undefined && now - at < OWN_ACTION_MS) return true;
    }
    return false;
  }
}
