/**
 * The background worker's side of "what needs the person" (issue #26): after a change it asks the
 * host for the "Needs you" list alone (`filter=needs`, one item: the list rides along whole), sets
 * the toolbar badge to its count, and shows a browser notification for what newly needs the person
 * (lib/notify-rule.ts decides; the panel's setting can turn them off). Clicking one opens the
 * panel at that entry. Bursts of changes make one request a second at most (an older daemon's
 * whole list: one in five seconds).
 * Design: docs/design.md §7.
 */
import type { AttentionItem, NativeRequest, PanelList, WithoutId } from "../../shared/schemas/native-messages";
import { ATTENTION_REASON_TEXT } from "../../shared/wording";
import { AttentionNotifier, type Notice } from "./notify-rule";
import { attentionOf, needsTally } from "./panel-attention";

export const ATTENTION_EVERY_MS = 1000;
/** A daemon before issue #26 sends no `attention`: the whole list is fetched instead, less often. */
export const WHOLE_LIST_EVERY_MS = 5000;

export interface AttentionDeps {
  request(body: WithoutId<NativeRequest>): Promise<unknown>;
  setBadge(text: string): Promise<void>;
  notify(id: string, title: string, message: string): Promise<void>;
  notificationsOn(): Promise<boolean>;
  now(): number;
}

/** What a notification says: the session, how many, and the first entry. */
export function noticeText(notice: Notice, sessionLabel: string | null): { title: string; message: string } {
  const first = notice.items[0] as AttentionItem;
  const more = notice.items.length > 1 ? ` (and ${notice.items.length - 1} more)` : "";
  return {
    title: `Vigil: ${sessionLabel ? `${sessionLabel} needs you` : "needs you"}`,
    message: `${first.title}: ${ATTENTION_REASON_TEXT[first.reason]}${more}`,
  };
}

export class BackgroundAttention {
  readonly notifier = new AttentionNotifier();
  /** Notifications shown (newest last): the browser suite reads them. */
  readonly shown: Array<{ id: string; title: string; message: string; error?: string }> = [];
  count = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #running = false;
  #again = false;
  #held: ReturnType<typeof setTimeout> | null = null;
  /** Whether the daemon answered without `attention` (so the whole list is needed). */
  #whole = false;

  constructor(private readonly deps: AttentionDeps) {}

  /** Something changed: look again soon (bursts coalesce). */
  changed(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(
      () => {
        this.#timer = null;
        void this.check();
      },
      this.#whole ? WHOLE_LIST_EVERY_MS : ATTENTION_EVERY_MS,
    );
  }

  /** The panel did this to a monitor or wake: what follows is not news. */
  acted(request: WithoutId<NativeRequest>): void {
    const now = this.deps.now();
    if (request.type === "control") this.notifier.acted(request.sessionId, request.monitorId, now);
    if (request.type === "retry" || request.type === "dismiss")
      this.notifier.acted(request.sessionId, request.wakeId, now);
  }

  async check(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = true;
    try {
      let list = (await this.deps.request({ type: "list", offset: 0, limit: 1, filter: "needs" })) as PanelList;
      // A daemon before issue #26 has no `attention`: it is worked out from the whole list.
      this.#whole = !list.attention;
      if (this.#whole) list = (await this.deps.request({ type: "list", offset: 0, limit: 500 })) as PanelList;
      const attention = attentionOf(list);
      // The same number as the panel's header: one per thing that needs the person.
      this.count = needsTally(attention).total;
      await this.deps.setBadge(this.count ? String(this.count) : "").catch(() => undefined);
      const now = this.deps.now();
      const notices = this.notifier.update(attention, now);
      if (notices.length && (await this.deps.notificationsOn())) {
        const labels = new Map((list.sessions ?? []).map((s) => [s.id, s.label || s.id]));
        for (const item of list.items) labels.set(item.session.id, item.session.label || item.session.id);
        for (const notice of notices) {
          const { title, message } = noticeText(
            notice,
            notice.session ? (labels.get(notice.session) ?? notice.session) : null,
          );
          try {
            await this.deps.notify(notice.id, title, message);
            this.shown.push({ id: notice.id, title, message });
          } catch (error) {
            this.shown.push({ id: notice.id, title, message, error: (error as Error).message });
          }
        }
      }
      // Entries held back by the one-a-minute rule are told of when their minute is up.
      const due = this.notifier.nextDue(attention, now);
      if (this.#held) clearTimeout(this.#held);
      this.#held = due === null ? null : setTimeout(() => void this.check(), Math.max(0, due - now) + 50);
    } catch {
      // Not connected: the next connection checks again.
    } finally {
      this.#running = false;
    }
    if (this.#again) {
      this.#again = false;
      void this.check();
    }
  }
}
