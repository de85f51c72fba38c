/**
 * One monitor's row in the side panel (a waitpoint's too: each shown once). At rest one line
 * (issue #38 item 12): a checkbox for bulk actions, the name (cut with "…", whole on hover) as the
 * button that opens the row, the outcome chip, the one fact (lib/panel-row-fact.ts) and one time;
 * Pause / Resume / Cancel / Checks lie over the line's end on hover and focus. Opened (the name,
 * Enter on the row, Show, an open check log, signals or confirmation, or a search matching inside):
 * the kind and times; a tool's URL and what its condition read (item 13); its id with a Copy
 * button for its `vigil show` command; the last event, the last error and the delivery, whole; a
 * waitpoint's device, intent and signals; its check log.
 * Design: docs/design.md §7.
 */
import type { PanelItem } from "../../shared/schemas/native-messages";
import type { CheckEntry, DeviceView, ReadField } from "../../shared/schemas/views";
import { deliveryHeadline, deliveryProblem, deviceWaitText, hostAwaySince, KIND_TEXT } from "../../shared/wording";
import { h } from "./dom";
import { badgeElement } from "./panel-badges";
import { cancelButtons, itemButton } from "./panel-buttons";
import { rowCauseParts } from "./panel-cause";
import { timeElement } from "./panel-clock";
import { isActive } from "./panel-filter";
import { idLine, marked } from "./panel-id";
import { outcomeOf } from "./panel-outcome";
import { restFact, restTime } from "./panel-row-fact";
import { itemKey, type PanelState } from "./panel-state";
import { canPause, canResume, checkLines, deliveryBadges, monitorDetailParts, waitpointBadges } from "./panel-view";

/** Names longer than this are likely cut on the line at rest (400 px): the details repeat them whole. */
const LONG_NAME = 32;

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
  const detailParts = monitorDetailParts(item).flatMap((part, i) => [
    i > 0 ? " · " : null,
    typeof part === "string" ? part : timeElement(part.iso, now, part.prefix, part.future),
  ]);
  const body = h(
    "div",
    { class: "body", id: `body-${key}` },
    // The line at rest cuts a long name: the opened row says it whole.
    name.length > LONG_NAME ? h("div", { class: "full-name" }, mark(name)) : null,
    h(
      "div",
      { class: "details-line muted" },
      h("span", { class: "kind" }, KIND_TEXT[monitor.kind]),
      " · ",
      h("span", { class: "details" }, detailParts),
    ),
    urlLine(item),
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
    monitor.readFields?.length ? readFieldList(monitor.readFields) : null,
    monitor.lastEvent
      ? h(
          "div",
          { class: "muted last-event" },
          // Under the fields a condition read, the rest of what the tool answered.
          monitor.readFields?.length ? "whole answer: " : null,
          mark(monitor.lastEvent),
        )
      : null,
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
  // Open: asked for, or showing what was asked (a check log, signals, a confirmation), or holding
  // a search's match that the line at rest does not show.
  const expanded =
    state.expanded.has(key) ||
    open ||
    signalsOpen ||
    state.confirming === key ||
    (!!state.filters.q.trim() && !!body.querySelector("mark"));
  const fact = restFact(item);
  const when = restTime(item);
  return h(
    "li",
    {
      class: "monitor",
      "data-key": key,
      tabindex: "-1",
      "data-monitor": monitor.id,
      "data-state": monitor.state,
      "data-tone": outcome.tone,
      "data-expanded": expanded ? "true" : undefined,
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
      h(
        "button",
        {
          type: "button",
          class: "expand",
          "data-action": "expand",
          "data-key": `${key}:expand`,
          "data-item": key,
          "aria-expanded": String(expanded),
          "aria-controls": `body-${key}`,
        },
        h("span", { class: "name", title: name }, mark(name)),
      ),
      h("span", { class: "chip", "data-tone": outcome.tone }, outcome.text),
      fact ? h("span", { class: "fact", title: fact }, h("span", {}, mark(fact))) : h("span", { class: "fact" }),
      when ? timeElement(when.iso, now, when.prefix, when.future) : null,
    ),
    buttons.length ? h("div", { class: "row actions" }, buttons) : null,
    body,
  );
}

/** A tool's URL, whole, on its own line (it may break anywhere: CSS). */
function urlLine({ monitor }: PanelItem): HTMLElement | null {
  const url = monitor.source.kind === "tool" ? monitor.source.args.url : undefined;
  return typeof url === "string" ? h("div", { class: "url" }, h("code", {}, url)) : null;
}

/** What the condition read, one field a line: "status 200", "body.state "success"". */
function readFieldList(fields: ReadField[]): HTMLElement {
  return h(
    "dl",
    { class: "read-fields" },
    fields.flatMap((field) => [h("dt", {}, field.path || "(observation)"), h("dd", {}, field.value)]),
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
