/**
 * One monitor's row in the side panel: name, state chip and kind; the details line (rewritten each
 * tick by lib/panel-clock.ts); the last event and error; delivery badges; Pause / Resume / Cancel /
 * Checks; and, when open, its check log ("why has it not fired?").
 * Design: docs/design.md §7.
 */
import type { PanelItem } from "../../shared/schemas/native-messages";
import type { CheckEntry } from "../../shared/schemas/views";
import { h } from "./dom";
import { badgeElement } from "./panel-badges";
import { cancelButtons, itemButton } from "./panel-buttons";
import { itemKey, type PanelState } from "./panel-state";
import { canPause, canResume, checkLines, deliveryBadges, monitorDetails, STATE_LABELS } from "./panel-view";

export function monitorRow(state: PanelState, item: PanelItem, now: number): HTMLElement {
  const { monitor } = item;
  const key = itemKey(item);
  const button = (action: string, label: string, extra: Record<string, string> = {}) =>
    itemButton(key, action, label, extra);
  const buttons: HTMLElement[] = [];
  if (canPause(monitor)) buttons.push(button("pause", "Pause"));
  if (canResume(monitor.state)) buttons.push(button("resume", "Resume"));
  buttons.push(...cancelButtons(state, item));
  const open = state.checks.has(key);
  // Polled kinds keep a check log; a watch streams and a waitpoint is signalled.
  if (monitor.kind !== "watch" && monitor.kind !== "signal")
    buttons.push(button("checks", open ? "Hide checks" : "Checks", { "aria-expanded": String(open) }));
  return h(
    "li",
    { class: "monitor", "data-monitor": monitor.id, "data-state": monitor.state },
    h(
      "div",
      { class: "row" },
      h("span", { class: "name" }, monitor.name),
      h("span", { class: "chip", "data-state": monitor.state }, STATE_LABELS[monitor.state]),
      h("span", { class: "kind" }, monitor.kind === "signal" ? "waitpoint" : monitor.kind),
    ),
    h("div", { class: "details", "data-details": "" }, monitorDetails(monitor, now).join(" · ")),
    monitor.lastEvent ? h("div", { class: "muted" }, monitor.lastEvent) : null,
    monitor.lastError ? h("div", { class: "error" }, monitor.lastError) : null,
    h("div", { class: "row" }, deliveryBadges(monitor).map(badgeElement)),
    buttons.length ? h("div", { class: "row actions" }, buttons) : null,
    open ? checkLog(monitor.name, state.checks.get(key), now) : null,
  );
}

/** The open check log: loading, empty, or the newest checks one line each. */
function checkLog(name: string, log: CheckEntry[] | null | undefined, now: number): HTMLElement {
  return h(
    "ol",
    { class: "checks", "aria-label": `Recent checks of ${name}` },
    log === null || log === undefined
      ? h("li", { class: "muted" }, "loading…")
      : log.length === 0
        ? h("li", { class: "muted" }, "No checks yet.")
        : checkLines(log, now).map((line) => h("li", {}, line)),
  );
}
