/**
 * The side panel's buttons: each carries `data-action`, a unique `data-key` and `data-item` for the
 * delegated click listener (lib/panel-actions.ts), and an accessible name that says what it acts on
 * ("Cancel CI run 8812 green"), since many rows have the same buttons. Cancel asks first
 * (`CANCEL_TEXT`, shared/wording.ts: the CLI's word).
 * Design: docs/design.md §7.
 */
import type { PanelItem } from "../../shared/schemas/native-messages";
import { CANCEL_TEXT } from "../../shared/wording";
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

/** Cancel, or while it asks: "Cancel? The job itself keeps running." with Yes, cancel / Keep. */
export function cancelButtons(state: PanelState, item: PanelItem): HTMLElement[] {
  const key = itemKey(item);
  const name = item.monitor.name;
  if (!canCancel(item.monitor.state)) return [];
  if (state.confirming !== key) return [itemButton(key, "cancel", CANCEL_TEXT.action, name)];
  return [
    h("span", {}, CANCEL_TEXT.ask),
    itemButton(key, "confirm", CANCEL_TEXT.confirm, name, { class: "danger" }),
    itemButton(key, "keep", CANCEL_TEXT.keep, name),
  ];
}
