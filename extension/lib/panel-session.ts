/**
 * One session's section in the side panel: its label, the waitpoint capsule (a button that opens
 * the popover of armed waitpoints), the popover when open, and its monitor rows.
 * Design: docs/design.md §7.
 */
import { h } from "./dom";
import { monitorRow } from "./panel-monitor-row";
import type { PanelState } from "./panel-state";
import { capsuleText, type SessionGroup } from "./panel-view";
import { waitpointCard } from "./panel-waitpoint-card";

export function sessionSection(state: PanelState, group: SessionGroup, now: number): HTMLElement {
  const capsule = capsuleText(group.waitpoints, now);
  const open = state.open.has(group.id);
  return h(
    "section",
    { class: "session", "data-session": group.id },
    h("h2", {}, group.label),
    capsule
      ? h(
          "button",
          {
            class: "capsule",
            "data-action": "capsule",
            "data-key": `${group.id}:capsule`,
            "data-group": group.id,
            "data-attention": String(group.attention),
            "aria-expanded": String(open),
          },
          capsule,
        )
      : null,
    open
      ? h(
          "div",
          { class: "popover", role: "region", "aria-label": `Waitpoints of ${group.label}` },
          group.waitpoints.filter((w) => w.state === "armed").map((w) => waitpointCard(state, group, w, now)),
        )
      : null,
    h(
      "ul",
      { class: "monitors" },
      group.items.map((item) => monitorRow(state, item, now)),
    ),
  );
}
