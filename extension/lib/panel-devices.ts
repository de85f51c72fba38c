/**
 * The side panel's "Devices" section (design.md §5, §7): one row per machine whose signal files are
 * collected over SSH, with its connection state, the error behind an offline or error state, and
 * when it was last collected from (ticks). No devices, no section.
 * Design: docs/design.md §7.
 */
import type { DeviceView } from "../../shared/schemas/views";
import { h } from "./dom";
import { timeElement } from "./panel-clock";
import { deviceRows } from "./panel-view";

const DEVICE_TONES = { connected: "met", offline: "paused", error: "failed" } as const;

export function devicesSection(devices: DeviceView[] | undefined, now: number): HTMLElement | null {
  const rows = deviceRows(devices);
  if (rows.length === 0) return null;
  return h(
    "section",
    { class: "devices", "aria-labelledby": "devices-title" },
    h("h2", { id: "devices-title" }, "Devices"),
    h(
      "ul",
      { class: "monitors" },
      rows.map((row) =>
        h(
          "li",
          { class: "device", "data-device": row.name, "data-state": row.state, title: row.headline, tabindex: "-1" },
          h(
            "div",
            { class: "row" },
            h("span", { class: "name" }, row.name),
            h("span", { class: "chip", "data-tone": DEVICE_TONES[row.state] }, row.state),
          ),
          row.error ? h("div", { class: "error" }, row.error) : null,
          h(
            "div",
            { class: "details", "data-device-details": "" },
            row.collectedAt ? timeElement(row.collectedAt, now, "collected ") : "not collected yet",
            ` · ${row.filesCollected} file${row.filesCollected === 1 ? "" : "s"}`,
          ),
        ),
      ),
    ),
  );
}
