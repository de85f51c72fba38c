/**
 * Send again's feedback (issue #38 item 6): a Needs-you entry's Send again shows a toast that
 * follows the wake — sending, then delivered or failed again (with why), and while it waits for a
 * backoff, until when. The entry itself leaves Needs you as soon as the wake is ready again, so
 * the toast, not the entry, says how it went. Read from the list's monitor delivery (its latest
 * wake) after each refresh; a settled toast stays SETTLED_MS.
 * Design: docs/design.md §7.
 */
import type { AttentionItem } from "../../shared/schemas/native-messages";
import type { DeliveryView } from "../../shared/schemas/views";
import { formatDuration } from "../../shared/wording";
import { h } from "./dom";
import type { PanelState, Resend } from "./panel-state";

export type { Resend };

export const SETTLED_MS = 8_000;

export type ResendPhase =
  | { phase: "sending" }
  | { phase: "backoff"; until: string }
  | { phase: "delivered"; via: string | null }
  | { phase: "failed"; error: string | null };

/** Where a Send again is, from the wake's delivery as the last list has it. Pure. */
export function resendPhase(resend: Resend, delivery: DeliveryView | null, now: number): ResendPhase {
  if (resend.error) return { phase: "failed", error: resend.error };
  if (!resend.accepted || !delivery || delivery.wakeId !== resend.wakeId) return { phase: "sending" };
  if (delivery.state === "delivered") return { phase: "delivered", via: delivery.deliveredVia };
  if (delivery.state === "needs_review" || delivery.state === "cancelled")
    return { phase: "failed", error: delivery.lastError };
  if (delivery.nextAttemptAt && Date.parse(delivery.nextAttemptAt) > now)
    return { phase: "backoff", until: delivery.nextAttemptAt };
  return { phase: "sending" };
}

/** The toast's words: "Sending wake-1 of CI run…", "wake-1 failed again: POST … answered 400". */
export function resendText(resend: Resend, phase: ResendPhase, now: number): string {
  const what = `${resend.wakeId} of ${resend.title}`;
  if (phase.phase === "sending") return `Sending ${what}…`;
  if (phase.phase === "backoff")
    return `${what} waits behind a backoff: next attempt in ${formatDuration(Math.max(0, Date.parse(phase.until) - now))}`;
  if (phase.phase === "delivered") return `${what} delivered${phase.via ? ` (${phase.via})` : ""}`;
  return `${what} failed again${phase.error ? `: ${phase.error.split("\n")[0]?.slice(0, 200)}` : ""}`;
}

const resendKey = (r: Pick<Resend, "sessionId" | "wakeId">) => `${r.sessionId}/${r.wakeId}`;

/** Starts following a Send again (before its request goes). */
export function startResend(state: PanelState, entry: AttentionItem): string | null {
  const { sessionId, monitorId, wakeId } = entry;
  if (!sessionId || !monitorId || !wakeId) return null;
  const resend: Resend = {
    sessionId,
    monitorId,
    wakeId,
    title: entry.title,
    accepted: false,
    error: null,
    settledAt: null,
  };
  state.resends.set(resendKey(resend), resend);
  return resendKey(resend);
}

const deliveryOf = (state: PanelState, r: Resend): DeliveryView | null =>
  state.list?.items.find((i) => i.session.id === r.sessionId && i.monitor.id === r.monitorId)?.monitor.delivery ?? null;

/** The Send again toasts; settled ones past SETTLED_MS are dropped. */
export function resendToasts(state: PanelState, now: number): HTMLElement[] {
  const out: HTMLElement[] = [];
  for (const [key, resend] of state.resends) {
    const phase = resendPhase(resend, deliveryOf(state, resend), now);
    const settled = phase.phase === "delivered" || phase.phase === "failed";
    if (settled) resend.settledAt ??= now;
    else resend.settledAt = null;
    if (resend.settledAt !== null && now - resend.settledAt > SETTLED_MS) {
      state.resends.delete(key);
      continue;
    }
    out.push(
      h(
        "div",
        { class: "toast", "data-resend": key, "data-phase": phase.phase },
        h("span", {}, resendText(resend, phase, now)),
      ),
    );
  }
  return out;
}
