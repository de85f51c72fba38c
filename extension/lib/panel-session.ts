/**
 * One session's section in the side panel: a header that folds it away (remembered), its counts and
 * "Clear ended"; then its monitor rows, the ended ones over a day old folded behind one button.
 * Design: docs/design.md §7.
 */
import type { PanelItem } from "../../shared/schemas/native-messages";
import type { DeviceView } from "../../shared/schemas/views";
import { h } from "./dom";
import { isActive } from "./panel-filter";
import { monitorRow } from "./panel-monitor-row";
import type { RowCache } from "./panel-row-cache";
import { itemKey, type PanelState } from "./panel-state";
import { type SessionGroup, sessionSplit } from "./panel-view";

export function sessionSection(
  state: PanelState,
  group: SessionGroup,
  now: number,
  devices: DeviceView[],
  rows: RowCache,
): HTMLElement {
  const inputsOf = (item: PanelItem) => {
    const key = itemKey(item);
    const device = item.waitpoint?.device ? devices.find((d) => d.name === item.waitpoint?.device) : undefined;
    // What the row shows besides its item: the person's state about it, and its device's state.
    return [
      item,
      state.selected.has(key),
      state.checks.has(key),
      state.checks.get(key),
      state.signals.has(key),
      state.confirming === key,
      device?.state,
    ];
  };
  const row = (item: PanelItem) => rows.row(itemKey(item), inputsOf(item), () => monitorRow(state, item, now, devices));
  const collapsed = state.collapsed.has(group.id);
  const { recent, older } = sessionSplit(group.items, now);
  const showOlder = state.older.has(group.id);
  // A session none of whose rows changed is kept whole (a change elsewhere touches one session).
  const inputs = [group.label, collapsed, showOlder, recent.length, ...group.items.flatMap(inputsOf)];
  return rows.row(`session:${group.id}`, inputs, () =>
    drawSession(group, { collapsed, recent, older, showOlder }, row),
  );
}

function drawSession(
  group: SessionGroup,
  {
    collapsed,
    recent,
    older,
    showOlder,
  }: { collapsed: boolean; recent: PanelItem[]; older: PanelItem[]; showOlder: boolean },
  row: (item: PanelItem) => HTMLElement,
): HTMLElement {
  const ended = group.items.filter((i) => !isActive(i.monitor.state)).length;
  const active = group.items.length - ended;
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
    collapsed ? null : h("ul", { class: "monitors" }, recent.map(row), showOlder ? older.map(row) : null),
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
