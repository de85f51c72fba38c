/**
 * Draws the whole side panel from its state: the header (link state, the "Needs you" count), the
 * page title ("(3) Vigil"), the one live summary line, then a notice while disconnected, the last
 * error, the sticky top bar (tabs with counts, search, filters, and the bulk bar), the "Needs you"
 * section (foldable, following the filters), one section per session (before "Needs you" while a
 * search is typed: its matches first), the devices and the settings. The header, the title, the
 * "Needs you" tab and the section show one number: the entries in view. The new tree is morphed into the page
 * (lib/dom.ts), so focus and a click in progress survive; focus that would be lost is put back.
 * Design: docs/design.md §7.
 */
import { countOf } from "../../shared/wording";
import { h, morph } from "./dom";
import {
  attentionInView,
  attentionKey,
  attentionOf,
  type NeedsTally,
  needsTally,
  needsTallyText,
} from "./panel-attention";
import { devicesSection } from "./panel-devices";
import { applyFilters, NO_FILTERS } from "./panel-filter";
import { needsSection } from "./panel-needs";
import { disconnectedNotice } from "./panel-notice";
import type { RowCache } from "./panel-row-cache";
import { resendToasts } from "./panel-send";
import { sessionSection } from "./panel-session";
import { itemKey, type PanelState } from "./panel-state";
import { bulkBar, toolbar } from "./panel-toolbar";
import { isHidden, toasts } from "./panel-undo";
import { groupBySession } from "./panel-view";

/** The page's live elements. */
export interface PanelPage {
  document: Document;
  app: HTMLElement;
  linkLabel: HTMLElement;
  needsCount: HTMLElement;
  summary: HTMLElement;
  /** The Undo toasts' live region (outside #app: it stays while the list is redrawn). */
  toasts: HTMLElement;
  /** The rows drawn last time, kept while unchanged. */
  rows: RowCache;
}

export function renderPanel(page: PanelPage, state: PanelState, now: number): void {
  const { link } = state;
  page.rows.sweep();
  const connected = link.status === "connected";
  page.linkLabel.dataset.status = connected && state.listFailed ? "failed" : link.status;
  page.linkLabel.textContent = connected
    ? state.listFailed
      ? "list failed"
      : "connected"
    : link.status === "connecting"
      ? "connecting…"
      : "disconnected";
  const children: Array<HTMLElement | null> = [];
  if (!connected) children.push(disconnectedNotice(link));
  if (state.error && connected) children.push(h("p", { class: "error", "data-testid": "error" }, state.error));
  let tally: NeedsTally | null = null;
  let summary = page.linkLabel.textContent;
  if (connected && state.list) {
    const list = state.list;
    const filtered = applyFilters(list, state.filters);
    // What an action waiting for its Undo time acts on is hidden as if done (lib/panel-undo.ts).
    const view = state.held.size
      ? { ...filtered, items: filtered.items.filter((i) => !isHidden(state, itemKey(i))) }
      : filtered;
    // One number for what is in view: the entries the filters leave (issue #38 item 7).
    const attention = attentionInView(attentionOf(list), state.filters, view.items).filter(
      (a) => !state.held.size || !isHidden(state, attentionKey(a)),
    );
    tally = needsTally(attention);
    const labels = new Map(view.sessions.map((s) => [s.id, s.label || s.id]));
    // Team mode: with more than one host, each session says which it is on (and when that one is away).
    const hosts = list.hosts ?? [];
    const hostById = new Map(hosts.map((host) => [host.id, host]));
    const hostOf = (id: string) => {
      const host = view.sessions.find((s) => s.id === id)?.host;
      return hosts.length > 1 && host ? (hostById.get(host) ?? null) : null;
    };
    children.push(
      h("div", { class: "topbar" }, toolbar(state, view, list.devices ?? [], hosts, tally), bulkBar(state)),
    );
    const needs = needsSection(
      attention,
      tally,
      (id) => labels.get(id) ?? id,
      state.confirming,
      now,
      state.needsAll,
      state.needsCollapsed,
    );
    const groups = groupBySession(view.items);
    const rows: HTMLElement[] = [];
    if (groups.length === 0) {
      const filtered = JSON.stringify(state.filters) !== JSON.stringify(NO_FILTERS);
      rows.push(h("p", { class: "muted" }, filtered ? "Nothing matches these filters." : "Nothing is being watched."));
    }
    rows.push(
      ...groups.map((group) => sessionSection(state, group, now, list.devices ?? [], page.rows, hostOf(group.id))),
    );
    // A search shows its matches first, in view; Needs you (following the same filters) after them.
    if (state.filters.q.trim()) children.push(...rows, needs);
    else children.push(needs, ...rows);
    if (list.total > list.offset + list.items.length)
      children.push(h("p", { class: "muted" }, `Showing the first ${list.items.length} of ${list.total}.`));
    children.push(devicesSection(list.devices, now));
    const parts = tally.total !== tally.monitors ? ` (${needsTallyText(tally).replaceAll(" · ", ", ")})` : "";
    summary = `${tally.total} need${tally.total === 1 ? "s" : ""} you${parts} · ${view.counts.active} active · ${countOf(view.counts.ended, "ended", "ended")}`;
  }
  children.push(settingsSection(state));

  const doc = page.document;
  const focusedKey = (doc.activeElement as HTMLElement | null)?.dataset?.key;
  const focusedItem = (doc.activeElement as HTMLElement | null)?.dataset?.item;
  morph(page.app, h("main", { id: "app" }, children));
  if (focusedKey && (doc.activeElement === doc.body || !doc.activeElement?.isConnected)) {
    const again =
      page.app.querySelector<HTMLElement>(`[data-key="${CSS.escape(focusedKey)}"]`) ??
      (focusedItem ? page.app.querySelector<HTMLElement>(`button[data-item="${CSS.escape(focusedItem)}"]`) : null);
    again?.focus();
  }

  morph(
    page.toasts,
    h("div", { id: "toasts", class: "toasts", "aria-live": "polite" }, resendToasts(state, now), toasts(state)),
  );

  const needs = tally?.total ?? 0;
  const title = needs ? `(${needs}) Vigil` : "Vigil";
  if (doc.title !== title) doc.title = title;
  page.needsCount.textContent = needs ? String(needs) : "";
  page.needsCount.hidden = !needs;
  page.needsCount.title = tally && needs ? `${needs} need${needs === 1 ? "s" : ""} you: ${needsTallyText(tally)}` : "";
  if (page.summary.textContent !== summary) page.summary.textContent = summary;
}

function settingsSection(state: PanelState): HTMLElement {
  return h(
    "section",
    { class: "settings", "aria-labelledby": "settings-title" },
    h("h2", { id: "settings-title" }, "Settings"),
    h(
      "label",
      {},
      h("input", {
        type: "checkbox",
        "data-action": "notify",
        "data-key": "setting:notify",
        checked: state.notify,
      }),
      " Notify me when something newly needs me",
    ),
  );
}
