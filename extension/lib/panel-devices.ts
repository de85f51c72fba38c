/**
 * The side panel's "Devices" section (design.md §5, §7): one row per machine whose signal files are
 * collected over SSH, with its connection state, the error behind an offline or error state, and
 * when it was last collected from (rewritten each tick by lib/panel-clock.ts). No devices, no section.
 * Design: docs/design.md §7.
 */
import type { DeviceView } from "../../shared/schemas/views";
import { h } from "./dom";
import { deviceDetails, deviceRows } from "./panel-view";

export function devicesSection(devices: DeviceView[] | undefined, now: number): HTMLElement | null {
  const rows = deviceRows(devices);
  if (rows.length === 0) return null;
  return h(
    "section",
    { class: "devices", "aria-label": "Devices" },
    h("h2", {}, "Devices"),
    h(
      "ul",
      { class: "monitors" },
      rows.map((row) =>
        h(
          "li",
          { class: "device", "data-device": row.name, "data-state": row.state, title: row.headline },
          h(
            "div",
            { class: "row" },
            h("span", { class: "name" }, row.name),
            h("span", { class: "chip", "data-state": row.state }, row.state),
            row.error ? h("span", { class: "kind" }, row.error) : null,
          ),
          h("div", { class: "details", "data-device-details": "" }, deviceDetails(row, now)),
        ),
      ),
    ),
  );
}
