/**
 * The side panel's per-monitor buttons, shared by the monitor rows and the waitpoint popover: each
 * carries `data-action`, a unique `data-key` and `data-item` for the delegated click listener
 * (lib/panel-actions.ts); Cancel asks "Stop waiting?" before it acts.
 * Design: docs/design.md §7.
 */
import type { PanelItem } from "../../shared/schemas/native-messages";
import { h } from "./dom";
import { itemKey, type PanelState } from "./panel-state";
import { canCancel } from "./panel-view";

/** A button handled by the delegated listener; `place` keeps keys unique where one item shows twice. */
export function itemButton(
  key: string,
  action: string,
  label: string,
  extra: Record<string, string> = {},
  place = "",
): HTMLElement {
  return h(
    "button",
    { "data-action": action, "data-key": `${key}:${place}${action}`, "data-item": key, ...extra },
    label,
  );
}

/** Cancel, or while it asks: "Stop waiting?" with Stop waiting / Keep. */
export function cancelButtons(state: PanelState, item: PanelItem, place = ""): HTMLElement[] {
  const key = itemKey(item);
  if (!canCancel(item.monitor.state)) return [];
  if (state.confirming !== key) return [itemButton(key, "cancel", "Cancel", {}, place)];
  return [
    h("span", {}, "Stop waiting? The job itself keeps running."),
    itemButton(key, "confirm", "Stop waiting", { class: "danger" }, place),
    itemButton(key, "keep", "Keep", {}, place),
  ];
}
