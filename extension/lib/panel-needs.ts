/**
 * The pinned "Needs you (N)" section at the top of the side panel (issue #26): what needs the
 * person, most urgent first, each leading with its human reason (the headline, issue #38 item 2)
 * and its exact label, then its whole cause (the mechanism), the wake id, when it began, and the
 * actions the daemon offers (Send again, Dismiss, Resume, Cancel, Show), its primary one first.
 * Design: docs/design.md §7.
 */

import { NEEDS_SHOWN } from "../../shared/panel-lists";
import type { AttentionAction, AttentionItem } from "../../shared/schemas/native-messages";
import { ATTENTION_ACTION_TEXT, ATTENTION_REASON_TEXT, CANCEL_TEXT } from "../../shared/wording";
import { h } from "./dom";
import { attentionKey, type NeedsTally, needsTallyText } from "./panel-attention";
import { timeElement } from "./panel-clock";

/** The entry's actions, its primary one first (an older daemon names none: the daemon's order). */
const inOrder = (a: AttentionItem): AttentionAction[] =>
  a.primary ? [a.primary, ...a.actions.filter((action) => action !== a.primary)] : a.actions;

/** Red for what stopped, amber for what is still being tried or is slow. */
const AMBER = new Set(["delivery_retrying", "wake_not_taken", "overload", "waitpoint_stalled"]);

export function needsSection(
  attention: AttentionItem[],
  tally: NeedsTally,
  sessionLabel: (id: string) => string,
  confirming: string | null,
  now: number,
  all: boolean,
  collapsed = false,
): HTMLElement {
  return h(
    "section",
    { class: "needs", "aria-labelledby": "needs-title", "data-count": String(tally.total) },
    needsHeading(tally.total, collapsed),
    collapsed ? null : needsBody(attention, tally, sessionLabel, confirming, now, all),
  );
}

/** The section's heading: a button that folds it to this line (the panel remembers it). */
function needsHeading(total: number, collapsed: boolean): HTMLElement {
  return h(
    "h2",
    {},
    h(
      "button",
      {
        type: "button",
        class: "fold",
        "data-action": "needs-fold",
        "data-key": "needs-fold",
        "aria-expanded": String(!collapsed),
      },
      h("span", { class: "caret", "aria-hidden": "true" }, collapsed ? "▸" : "▾"),
      h("span", { id: "needs-title" }, `Needs you (${total})`),
    ),
  );
}

function needsBody(
  attention: AttentionItem[],
  tally: NeedsTally,
  sessionLabel: (id: string) => string,
  confirming: string | null,
  now: number,
  all: boolean,
): Array<HTMLElement | null> {
  const shown = all ? attention : attention.slice(0, NEEDS_SHOWN);
  const hidden = attention.length - shown.length;
  return [
    // The "Needs you" tab counts monitors: when devices or the overload are here too, say so.
    tally.total !== tally.monitors ? h("p", { class: "muted tally", "data-tally": "" }, needsTallyText(tally)) : null,
    attention.length === 0
      ? h("p", { class: "muted" }, "Nothing needs you.")
      : h(
          "ol",
          { class: "attention" },
          shown.map((a) => attentionRow(a, sessionLabel, confirming, now)),
        ),
    attention.length > NEEDS_SHOWN
      ? h(
          "button",
          {
            type: "button",
            class: "quiet",
            "data-action": "needs-all",
            "data-key": "needs-all",
            "aria-expanded": String(all),
          },
          hidden > 0 ? `Show ${hidden} more` : "Show fewer",
        )
      : null,
  ];
}

function attentionRow(
  a: AttentionItem,
  sessionLabel: (id: string) => string,
  confirming: string | null,
  now: number,
): HTMLElement {
  const key = attentionKey(a);
  const buttons = inOrder(a).flatMap((action) => {
    if (action === "cancel" && confirming === `needs:${key}`)
      return [
        h("span", {}, CANCEL_TEXT.ask),
        attentionButton(key, "needs-confirm", CANCEL_TEXT.confirm, a.title, "danger"),
        attentionButton(key, "needs-keep", CANCEL_TEXT.keep, a.title),
      ];
    const primary = action === a.primary ? "primary" : undefined;
    return [attentionButton(key, `needs-${action}`, ATTENTION_ACTION_TEXT[action], a.title, primary)];
  });
  return h(
    "li",
    {
      class: "attention-item",
      "data-key": `needs:${key}`,
      "data-attention": key,
      "data-reason": a.reason,
      "data-rank": String(a.rank),
      "data-tone": AMBER.has(a.reason) ? "paused" : "failed",
      tabindex: "-1",
    },
    h(
      "div",
      { class: "row head" },
      h("span", { class: "name", title: a.title }, a.title),
      h(
        "span",
        { class: "chip", "data-tone": AMBER.has(a.reason) ? "paused" : "failed" },
        a.label ?? ATTENTION_REASON_TEXT[a.reason],
      ),
    ),
    // The human reason first; the mechanism (the whole cause) after it.
    a.headline ? h("p", { class: "headline", "data-headline": "" }, a.headline) : null,
    h(
      "div",
      { class: "details" },
      [a.sessionId ? sessionLabel(a.sessionId) : null, a.device ? `device ${a.device}` : null, a.wakeId ?? null]
        .filter(Boolean)
        .join(" · "),
      a.sessionId || a.device || a.wakeId ? " · " : "",
      timeElement(a.since, now, "since "),
    ),
    a.detail && a.detail !== a.headline ? h("pre", { class: "cause" }, a.detail) : null,
    buttons.length ? h("div", { class: "row actions" }, buttons) : null,
  );
}

function attentionButton(key: string, action: string, label: string, target: string, cls?: string): HTMLElement {
  return h(
    "button",
    {
      type: "button",
      class: cls,
      "data-action": action,
      "data-key": `needs:${key}:${action}`,
      "data-target": key,
      "aria-label": `${label} ${target}`,
    },
    label,
  );
}
