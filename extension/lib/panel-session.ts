/**
 * One session's section in the side panel: a header that folds it away (remembered), its counts and
 * "Clear ended"; then its monitor rows, the ended ones over a day old folded behind one button.
 * Design: docs/design.md §7.
 */
import type { DeviceView } from "../../shared/schemas/views";
import { h } from "./dom";
import { isActive } from "./panel-filter";
import { monitorRow } from "./panel-monitor-row";
import type { PanelState } from "./panel-state";
import { type SessionGroup, sessionSplit } from "./panel-view";

export function sessionSection(
  state: PanelState,
  group: SessionGroup,
  now: number,
  devices: DeviceView[],
): HTMLElement {
  const collapsed = state.collapsed.has(group.id);
  const { recent, older } = sessionSplit(group.items, now);
  const ended = group.items.filter((i) => !isActive(i.monitor.state)).length;
  const active = group.items.length - ended;
  const showOlder = state.older.has(group.id);
  return h(
    "section",
    { class: "session", "data-session": group.id, "data-key": `session:${group.id}` },
    h(
      "div",
      { class: "session-head row" },
      h(
        "h2",
        {},
        h(
          "button",
          {
            type: "button",
            class: "fold",
            "data-action": "fold",
            "data-group": group.id,
            "data-key": `${group.id}:fold`,
            "aria-expanded": String(!collapsed),
          },
          h("span", { class: "caret", "aria-hidden": "true" }, collapsed ? "▸" : "▾"),
          group.label,
        ),
      ),
      h("span", { class: "counts" }, `${active} active · ${ended} ended`),
      ended > 0
        ? h(
            "button",
            {
              type: "button",
              class: "quiet",
              "data-action": "clear-ended",
              "data-group": group.id,
              "data-key": `${group.id}:clear-ended`,
              "aria-label": `Clear ended from ${group.label} (${ended})`,
            },
            "Clear ended",
          )
        : null,
    ),
    collapsed
      ? null
      : h(
          "ul",
          { class: "monitors" },
          recent.map((item) => monitorRow(state, item, now, devices)),
          showOlder ? older.map((item) => monitorRow(state, item, now, devices)) : null,
        ),
    !collapsed && older.length > 0
      ? h(
          "button",
          {
            type: "button",
            class: "quiet older",
            "data-action": "older",
            "data-group": group.id,
            "data-key": `${group.id}:older`,
            "aria-expanded": String(showOlder),
          },
          showOlder ? "Fold the older ended" : `${older.length} ended over a day ago`,
        )
      : null,
  );
}
