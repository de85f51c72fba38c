/**
 * Draws the whole side panel from its state: the link label in the header, then a notice while
 * disconnected, the last error, a line when checks run late (overload), one section per session, and the devices (when there are any). The new tree is morphed into the
 * page (lib/dom.ts), so focus and a click in progress survive.
 * Design: docs/design.md §7.
 */
import { overloadText } from "../../shared/wording";
import { h, morph } from "./dom";
import { devicesSection } from "./panel-devices";
import { disconnectedNotice } from "./panel-notice";
import { sessionSection } from "./panel-session";
import type { PanelState } from "./panel-state";
import { groupBySession } from "./panel-view";

/** The page's two live elements: the header's link label and the list (`main#app`). */
export interface PanelPage {
  app: HTMLElement;
  linkLabel: HTMLElement;
}

export function renderPanel(page: PanelPage, state: PanelState, now: number): void {
  const { link } = state;
  page.linkLabel.dataset.status = link.status;
  page.linkLabel.textContent =
    link.status === "connected" ? "connected" : link.status === "connecting" ? "connecting…" : "disconnected";
  const children: HTMLElement[] = [];
  if (link.status !== "connected") children.push(disconnectedNotice(link));
  if (state.error && link.status === "connected") children.push(h("p", { class: "error" }, state.error));
  if (link.status === "connected" && state.list) {
    // Checks that cannot keep up are said at the top, not hidden in stretched intervals (design.md §3).
    const overload = state.list.checks ? overloadText(state.list.checks) : null;
    if (overload) children.push(h("p", { class: "overload", role: "status" }, overload));
    const groups = groupBySession(state.list.items);
    if (groups.length === 0) children.push(h("p", { class: "muted" }, "Nothing is being watched."));
    children.push(...groups.map((group) => sessionSection(state, group, now)));
    const devices = devicesSection(state.list.devices, now);
    if (devices) children.push(devices);
  }
  morph(page.app, h("main", { id: "app", "aria-live": "polite" }, children));
}
