/**
 * The side panel's buttons: each carries `data-action`, a unique `data-key` and `data-item` for the
 * delegated click listener (lib/panel-actions.ts), and an accessible name that says what it acts on
 * ("Cancel CI run 8812 green"), since many rows have the same buttons. Cancel asks "Stop waiting?"
 * before it acts.
 * Design: docs/design.md §7.
 */
import type { PanelItem } from "../../shared/schemas/native-messages";
import { h } from "./dom";
import { itemKey, type PanelState } from "./panel-state";
import { canCancel } from "./panel-view";

/** A button handled by the delegated listener, named for screen readers with its target. */
export function itemButton(
  key: string,
  action: string,
  label: string,
  target: string,
  extra: Record<string, string> = {},
): HTMLElement {
  return h(
    "button",
    {
      type: "button",
      "data-action": action,
      "data-key": `${key}:${action}`,
      "data-item": key,
      "aria-label": `${label} ${target}`,
      ...extra,
    },
    label,
  );
}

/** Cancel, or while it asks: "Stop waiting?" with Stop waiting / Keep. */
export function cancelButtons(state: PanelState, item: PanelItem): HTMLElement[] {
  const key = itemKey(item);
  const name = item.monitor.name;
  if (!canCancel(item.monitor.state)) return [];
  if (state.confirming !== key) return [itemButton(key, "cancel", "Cancel", name)];
  return [
    h("span", {}, "Stop waiting? The job itself keeps running."),
    itemButton(key, "confirm", "Stop waiting", `for ${name}`, { class: "danger" }),
    itemButton(key, "keep", "Keep", name),
  ];
}
