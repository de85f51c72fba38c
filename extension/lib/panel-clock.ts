/**
 * Relative times in the side panel tick without a round trip: times are rendered as `<time>`
 * elements carrying their ISO time (and the absolute time on hover), and each second their text is
 * rewritten in place. The list itself refreshes only on the host's "changed".
 * Design: docs/design.md §7.
 */
import { h } from "./dom";
import { timeText } from "./panel-view";

export const TICK_MS = 1000;

/** The absolute time a relative one stands for, as the hover shows it: "3 Dec 2026, 18:32:05". */
export const absoluteTime = (iso: string): string => absoluteFormat().format(new Date(iso));

/**
 * One formatter for every hover time: `toLocaleString` with options builds a new one per call,
 * which was most of a 500-row render (bench/panel-browser.js).
 */
let format: Intl.DateTimeFormat | null = null;
const absoluteFormat = (): Intl.DateTimeFormat => {
  format ??= new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });
  return format;
};

/** "checked 3s ago" for `iso`, re-read each tick; nothing when there is no time. */
export function timeElement(iso: string | null, now: number, prefix = "", future = false): HTMLElement | null {
  return iso
    ? h(
        "time",
        {
          datetime: iso,
          "data-time": iso,
          "data-prefix": prefix,
          "data-future": future ? "true" : undefined,
          title: absoluteTime(iso),
        },
        `${prefix}${timeText(iso, now, future)}`,
      )
    : null;
}

/** One tick: every `data-time` element, read against `now`. */
export function tickTimes(app: ParentNode, now: number): void {
  for (const element of app.querySelectorAll<HTMLElement>("[data-time]")) {
    const text = `${element.dataset.prefix ?? ""}${timeText(element.dataset.time ?? "", now, element.dataset.future === "true")}`;
    if (element.textContent !== text) element.textContent = text;
  }
}
