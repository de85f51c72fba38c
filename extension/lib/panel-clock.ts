/**
 * Relative times in the side panel tick without a round trip: times are rendered as `data-time`
 * spans, and each second the spans and every monitor's and device's details line are rewritten in place. The
 * list itself refreshes only on the host's "changed".
 * Design: docs/design.md §7.
 */
import { relativeTimeCoarse } from "../../shared/wording";
import { h } from "./dom";
import type { PanelState } from "./panel-state";
import { deviceDetails, deviceRows, monitorDetails } from "./panel-view";

export const TICK_MS = 1000;

/** "in 3h" for `iso`, re-read each tick; nothing when there is no time. */
export function timeElement(iso: string | null, now: number, prefix = ""): HTMLElement | null {
  return iso
    ? h("span", { "data-time": iso, "data-prefix": prefix }, `${prefix}${relativeTimeCoarse(iso, now)}`)
    : null;
}

/** One tick: every `data-time` span and every monitor's and device's details line, read against `now`. */
export function tickTimes(app: HTMLElement, state: PanelState, now: number): void {
  for (const element of app.querySelectorAll<HTMLElement>("[data-time]")) {
    element.textContent = `${element.dataset.prefix ?? ""}${relativeTimeCoarse(element.dataset.time ?? null, now)}`;
  }
  if (state.list) {
    for (const item of state.list.items) {
      const details = app.querySelector<HTMLElement>(
        `[data-session="${CSS.escape(item.session.id)}"] [data-monitor="${CSS.escape(item.monitor.id)}"] [data-details]`,
      );
      if (details) details.textContent = monitorDetails(item.monitor, now).join(" · ");
    }
    for (const row of deviceRows(state.list.devices)) {
      const details = app.querySelector<HTMLElement>(`[data-device="${CSS.escape(row.name)}"] [data-device-details]`);
      if (details) details.textContent = deviceDetails(row, now);
    }
  }
}
