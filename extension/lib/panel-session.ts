/**
 * One session's section in the side panel: a header that folds it away (remembered), its counts and
 * "Clear ended"; in team mode the host it is on, and since when that host is away if it is; then its
 * monitor rows, the ended ones over a day old folded behind one button.
 * Design: docs/design.md §7.
 */

import type { PanelItem } from "../../shared/schemas/native-messages";
import type { DeviceView, PanelHost } from "../../shared/schemas/views";
import { clearStayText, hostAwaySince } from "../../shared/wording";
import { h } from "./dom";
import { timeElement } from "./panel-clock";
import { isActive, isClearable } from "./panel-filter";
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
  host: PanelHost | null = null,
): HTMLElement {
  const inputsOf = (item: PanelItem) => {
    const key = itemKey(item);
    const device = item.waitpoint?.device ? devices.find((d) => d.name === item.waitpoint?.device) : undefined;
    // What the row shows besides its item: the person's state about it, and its device's state.
    return [
      item,
      state.selected.has(key),
      state.expanded.has(key),
      state.checks.has(key),
      state.checks.get(key),
      state.signals.has(key),
      state.confirming === key,
      device?.state,
      state.filters.q,
    ];
  };
  const row = (item: PanelItem) => rows.row(itemKey(item), inputsOf(item), () => monitorRow(state, item, now, devices));
  const collapsed = state.collapsed.has(group.id);
  // Clear ended acts on the whole session: offered only while the filters show all of its ended rows.
  const { filter, kind, device, q } = state.filters;
  const whole = (filter === "all" || filter === "ended") && !kind && !device && !q.trim();
  const { recent, older } = sessionSplit(group.items, now);
  const showOlder = state.older.has(group.id);
  // A session none of whose rows changed is kept whole (a change elsewhere touches one session).
  const inputs = [
    group.label,
    collapsed,
    showOlder,
    recent.length,
    whole,
    host?.name,
    host?.state,
    host?.since,
    ...group.items.flatMap(inputsOf),
  ];
  return rows.row(`session:${group.id}`, inputs, () =>
    drawSession(group, { collapsed, recent, older, showOlder, host, now, whole }, row),
  );
}

/** Under the header of a session whose host is away: "host beta offline since 3m ago". */
function hostAwayLine(host: PanelHost, now: number): HTMLElement | null {
  if (host.state === "online" || host.since === null) return null;
  return h(
    "p",
    { class: "host-away", "data-host": host.name },
    `host ${host.name} ${hostAwaySince(host.state)}`,
    timeElement(host.since, now),
    " · its checks and wakes wait for it",
  );
}

function drawSession(
  group: SessionGroup,
  {
    collapsed,
    recent,
    older,
    showOlder,
    host,
    now,
    whole,
  }: {
    collapsed: boolean;
    whole: boolean;
    recent: PanelItem[];
    older: PanelItem[];
    showOlder: boolean;
    host: PanelHost | null;
    now: number;
  },
  row: (item: PanelItem) => HTMLElement,
): HTMLElement {
  const ended = group.items.filter((i) => !isActive(i.monitor.state)).length;
  const active = group.items.length - ended;
  // What Clear ended will clear, by the daemon's own rule (shared/clear-ended.ts), and what stays.
  const clearable = group.items.filter(isClearable).length;
  const staying = ended - clearable;
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
      host ? h("span", { class: "host", "data-state": host.state }, `on ${host.name}`) : null,
      h("span", { class: "counts" }, `${active} active · ${ended} ended`),
      whole && clearable > 0
        ? h(
            "button",
            {
              type: "button",
              class: "quiet",
              "data-action": "clear-ended",
              "data-group": group.id,
              "data-key": `${group.id}:clear-ended`,
              "data-count": String(clearable),
              "aria-label": `Clear ended (${clearable}) from ${group.label}`,
            },
            `Clear ended (${clearable})`,
          )
        : null,
    ),
    whole && staying > 0
      ? h("p", { class: "muted stays", "data-stays": String(staying) }, clearStayText(staying))
      : null,
    host ? hostAwayLine(host, now) : null,
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
