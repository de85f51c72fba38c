/**
 * One armed waitpoint's card in a session's popover: label and state, the intent, the quorum line
 * and expiry, its badges (wake budget, delivery, failure), the signals received, and Cancel.
 * Design: docs/design.md §7.
 */
import type { PanelItem } from "../../shared/schemas/native-messages";
import type { WaitpointView } from "../../shared/schemas/views";
import { h } from "./dom";
import { badgeElement } from "./panel-badges";
import { cancelButtons } from "./panel-buttons";
import { timeElement } from "./panel-clock";
import type { PanelState } from "./panel-state";
import { quorumText, type SessionGroup, waitpointBadges } from "./panel-view";

export function waitpointCard(
  state: PanelState,
  group: SessionGroup,
  waitpoint: WaitpointView,
  now: number,
): HTMLElement {
  const item = group.items.find((i) => i.monitor.id === waitpoint.id) as PanelItem;
  return h(
    "div",
    { "data-waitpoint": waitpoint.id },
    h("h2", {}, waitpoint.label, " ", h("span", { class: "chip", "data-state": item.monitor.state }, waitpoint.state)),
    waitpoint.intent ? h("p", {}, h("strong", {}, "Intent: "), waitpoint.intent) : null,
    h("p", {}, quorumText(waitpoint), waitpoint.expiresAt ? " · expires " : "", timeElement(waitpoint.expiresAt, now)),
    h("div", { class: "row" }, waitpointBadges(waitpoint, item.monitor).map(badgeElement)),
    waitpoint.signals.length
      ? h(
          "ul",
          {},
          waitpoint.signals.map((s) =>
            h(
              "li",
              {},
              `${s.status}${s.member ? ` · ${s.member}` : ""}${s.message ? ` · ${s.message}` : ""} · via ${s.via} · `,
              timeElement(s.at, now),
            ),
          ),
        )
      : h("p", { class: "muted" }, "No signals yet."),
    h("div", { class: "row actions" }, cancelButtons(state, item, "popover-")),
  );
}
