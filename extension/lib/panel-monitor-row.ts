/**
 * One monitor's row in the side panel (a waitpoint's too: each shown once): a checkbox for bulk
 * actions, the name (two lines at most, the whole name on hover), the outcome chip and kind; the
 * details line (times tick); its id with a Copy button for its `vigil show` command; the last event, the last error and the delivery, whole; a waitpoint's
 * device, intent and signals; Pause / Resume / Cancel / Checks; and, when open, its check log.
 * Design: docs/design.md §7.
 */
import type { PanelItem } from "../../shared/schemas/native-messages";
import type { CheckEntry, DeviceView } from "../../shared/schemas/views";
import { deliveryHeadline, deliveryProblem, deviceWaitText, hostAwaySince } from "../../shared/wording";
import { h } from "./dom";
import { badgeElement } from "./panel-badges";
import { cancelButtons, itemButton } from "./panel-buttons";
import { rowCauseParts } from "./panel-cause";
import { timeElement } from "./panel-clock";
import { isActive, kindOf } from "./panel-filter";
import { idLine, marked } from "./panel-id";
import { outcomeOf } from "./panel-outcome";
import { itemKey, type PanelState } from "./panel-state";
import { canPause, canResume, checkLines, deliveryBadges, monitorDetailParts, waitpointBadges } from "./panel-view";

/** Kinds that keep a check log: they poll. A watch streams; event, time and waitpoint never check. */
const CHECKED_KINDS = new Set(["command", "tool", "browser"]);

export function monitorRow(state: PanelState, item: PanelItem, now: number, devices: DeviceView[]): HTMLElement {
  const { monitor, waitpoint } = item;
  const key = itemKey(item);
  const name = monitor.name;
  const button = (action: string, label: string, extra: Record<string, string> = {}) =>
    itemButton(key, action, label, name, extra);
  const buttons: HTMLElement[] = [];
  if (canPause(monitor)) buttons.push(button("pause", "Pause"));
  if (canResume(monitor.state)) buttons.push(button("resume", "Resume"));
  buttons.push(...cancelButtons(state, item));
  const open = state.checks.has(key);
  if (CHECKED_KINDS.has(monitor.kind))
    buttons.push(button("checks", open ? "Hide checks" : "Checks", { "aria-expanded": String(open) }));
  const signalsOpen = state.signals.has(key);
  if (waitpoint && waitpoint.signals.length > 0)
    buttons.push(
      button("signals", signalsOpen ? "Hide signals" : `Signals (${waitpoint.signals.length})`, {
        "aria-expanded": String(signalsOpen),
      }),
    );
  const outcome = outcomeOf(item);
  const selectable = isActive(monitor.state);
  const device = waitpoint?.device ? devices.find((d) => d.name === waitpoint.device) : undefined;
  const deviceLine =
    waitpoint?.device && waitpoint.state === "armed" ? deviceWaitText(waitpoint.device, device?.state ?? null) : null;
  // The delivery has its own line (with its error, whole): the badges are the waitpoint's own.
  const delivery = deliveryBadges(monitor).map((b) => b.text);
  const badges = waitpoint ? waitpointBadges(waitpoint, monitor).filter((b) => !delivery.includes(b.text)) : [];
  const deliveryError = deliveryProblem(monitor.delivery)?.error ?? null;
  // A search marks what it matched wherever the row shows it (the daemon searches what rows show).
  const mark = (text: string) => marked(text, state.filters.q);
  return h(
    "li",
    {
      class: "monitor",
      "data-key": key,
      tabindex: "-1",
      "data-monitor": monitor.id,
      "data-state": monitor.state,
      "data-tone": outcome.tone,
    },
    h(
      "div",
      { class: "row head" },
      selectable
        ? h("input", {
            type: "checkbox",
            class: "select",
            "data-action": "select",
            "data-key": `${key}:select`,
            "data-item": key,
            "aria-label": `Select ${name}`,
            checked: state.selected.has(key),
          })
        : null,
      h("span", { class: "name", title: name }, mark(name)),
      h("span", { class: "chip", "data-tone": outcome.tone }, outcome.text),
      h("span", { class: "kind" }, kindOf(item)),
    ),
    h(
      "div",
      { class: "details" },
      monitorDetailParts(item).flatMap((part, i) => [
        i > 0 ? " · " : null,
        typeof part === "string" ? part : timeElement(part.iso, now, part.prefix, part.future),
      ]),
    ),
    idLine(item, key, state.filters.q),
    deviceLine ? h("div", { class: "device-line", "data-tone": device?.state ?? "unknown" }, deviceLine) : null,
    monitor.waitingForHost
      ? h(
          "div",
          { class: "host-line" },
          `waiting for their host (${monitor.waitingForHost.host}, ${hostAwaySince(monitor.waitingForHost.state)}`,
          timeElement(monitor.waitingForHost.since, now),
          ")",
        )
      : null,
    monitor.sandbox ? h("div", { class: "muted sandbox" }, monitor.sandbox) : null,
    waitpoint?.intent ? h("div", { class: "muted intent" }, mark(waitpoint.intent)) : null,
    monitor.lastEvent ? h("div", { class: "muted last-event" }, mark(monitor.lastEvent)) : null,
    monitor.lastError ? h("div", { class: "error" }, mark(monitor.lastError)) : null,
    ...rowCauseParts(state, item),
    monitor.delivery
      ? h(
          "div",
          { class: "delivery", "data-wake": monitor.delivery.state },
          deliveryHeadline(monitor.delivery),
          monitor.delivery.state === "needs_review" || monitor.delivery.attempts > 0
            ? ` · ${monitor.delivery.wakeId}`
            : "",
        )
      : null,
    deliveryError ? h("div", { class: "error" }, deliveryError) : null,
    badges.length ? h("div", { class: "row" }, badges.map(badgeElement)) : null,
    buttons.length ? h("div", { class: "row actions" }, buttons) : null,
    open ? checkLog(name, state.checks.get(key), now) : null,
    signalsOpen && waitpoint
      ? h(
          "ul",
          { class: "signals", "aria-label": `Signals of ${name}` },
          waitpoint.signals.map((s) =>
            h(
              "li",
              {},
              mark(
                `${s.status}${s.member ? ` · ${s.member}` : ""}${s.message ? ` · ${s.message}` : ""} · via ${s.via} · `,
              ),
              timeElement(s.at, now),
            ),
          ),
        )
      : null,
  );
}

/** The open check log: loading, empty, or the newest checks one line each. */
function checkLog(name: string, log: CheckEntry[] | null | undefined, now: number): HTMLElement {
  return h(
    "ol",
    { class: "checks", "aria-label": `Recent checks of ${name}` },
    log === null || log === undefined
      ? h("li", { class: "muted" }, "loading…")
      : log.length === 0
        ? h("li", { class: "muted" }, "No checks yet.")
        : checkLines(log, now).map((line) => h("li", {}, line)),
  );
}
