/**
 * The side panel's toolbar (issue #26): the tabs All / Needs you / Active / Ended with their
 * counts, a search box (names, ids, labels), and filters by session, kind, device and (with
 * more than one host: team mode) host;
 * below it, while monitors are selected, the bulk bar (Pause, Resume, Cancel with one confirmation).
 * Design: docs/design.md §7.
 */
import { PANEL_FILTERS, PANEL_KINDS, type PanelFilter } from "../../shared/panel-lists";
import type { PanelCounts } from "../../shared/schemas/native-messages";
import type { DeviceView, PanelHost } from "../../shared/schemas/views";
import { CANCEL_TEXT, countOf } from "../../shared/wording";
import { h } from "./dom";
import { type NeedsTally, needsTallyText } from "./panel-attention";
import type { FilteredList } from "./panel-filter";
import type { PanelState } from "./panel-state";

const TAB_LABELS: Record<PanelFilter, string> = {
  all: "All",
  needs: "Needs you",
  active: "Active",
  ended: "Ended",
};

export function toolbar(
  state: PanelState,
  view: FilteredList,
  devices: DeviceView[],
  hosts: readonly PanelHost[] = [],
  needs: NeedsTally | null = null,
): HTMLElement {
  const { filters } = state;
  const select = (name: "session" | "kind" | "device" | "host", label: string, options: Array<[string, string]>) =>
    h(
      "select",
      { "data-filter": name, "data-key": `filter:${name}`, "aria-label": label },
      [["", label] as [string, string], ...options].map(([value, text]) =>
        h("option", { value, selected: filters[name] === value }, text),
      ),
    );
  return h(
    "div",
    { class: "toolbar" },
    h(
      "div",
      { class: "tabs", role: "group", "aria-label": "Show" },
      PANEL_FILTERS.map((tab) =>
        h(
          "button",
          {
            type: "button",
            class: "tab",
            "data-action": "tab",
            "data-tab": tab,
            "data-key": `tab:${tab}`,
            "aria-pressed": String(filters.filter === tab),
            // The one "Needs you" number (issue #38 item 7): the entries in view, as in the header.
            ...(tab === "needs" && needs
              ? { "aria-label": `Needs you: ${needs.total}`, title: needsTallyText(needs) }
              : {}),
          },
          `${TAB_LABELS[tab]} `,
          h(
            "span",
            { class: "count" },
            String(tab === "needs" && needs ? needs.total : view.counts[tab as keyof PanelCounts]),
          ),
        ),
      ),
    ),
    h(
      "div",
      { class: "row filters" },
      h("input", {
        type: "search",
        class: "search",
        "data-filter": "q",
        "data-key": "filter:q",
        placeholder: "Search names, ids, labels",
        "aria-label": "Search names, ids, labels",
      }),
      select(
        "session",
        "All sessions",
        view.sessions.map((s) => [s.id, `${s.label || s.id} (${s.counts.all})`]),
      ),
      select(
        "kind",
        "All kinds",
        PANEL_KINDS.map((k) => [k, k]),
      ),
      devices.length
        ? select(
            "device",
            "All devices",
            devices.map((d) => [d.name, d.name]),
          )
        : null,
      hosts.length > 1
        ? select(
            "host",
            "All hosts",
            hosts.map((host) => [
              host.name,
              host.self
                ? `${host.name} (this machine)`
                : host.state === "online"
                  ? host.name
                  : `${host.name} (${host.state})`,
            ]),
          )
        : null,
    ),
  );
}

/** While monitors are selected: how many, and Pause / Resume / Cancel for all of them at once. */
export function bulkBar(state: PanelState): HTMLElement | null {
  const n = state.selected.size;
  if (n === 0) return null;
  const button = (action: string, label: string, cls?: string) =>
    h(
      "button",
      {
        type: "button",
        class: cls,
        "data-action": action,
        "data-key": `bulk:${action}`,
        "aria-label": `${label} the ${n} selected monitor${n === 1 ? "" : "s"}`,
      },
      label,
    );
  const what = `${n} selected`;
  if (state.confirming === "bulk")
    return h(
      "div",
      { class: "bulk row", role: "group", "aria-label": "Selected monitors" },
      h("span", {}, `Cancel ${countOf(n, "monitor")}? The jobs themselves keep running.`),
      button("bulk-confirm", CANCEL_TEXT.confirm, "danger"),
      button("bulk-keep", CANCEL_TEXT.keep),
    );
  return h(
    "div",
    { class: "bulk row", role: "group", "aria-label": "Selected monitors" },
    h("span", {}, what),
    button("bulk-pause", "Pause"),
    button("bulk-resume", "Resume"),
    button("bulk-cancel", "Cancel"),
    button("bulk-clear", "Clear selection"),
  );
}
