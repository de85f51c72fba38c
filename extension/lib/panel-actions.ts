/**
 * What the side panel's controls do, from delegated listeners (so a refresh never drops a click):
 * Retry now; Pause / Resume / Cancel a monitor (Cancel asks first; Keep backs out); the check log
 * and a waitpoint's signals; the "Needs you" actions (Send again, Dismiss, Resume, Cancel, Show);
 * selecting monitors and the bulk bar (one confirmation for all cancels); folding sessions; Clear
 * ended; the tabs, filters and search; the notification setting; Escape closes what is open.
 * Each request goes to the host, then the list is fetched again.
 * Design: docs/design.md §7.
 */
import type { AttentionItem, PanelFilter, PanelItem, PanelKind } from "../../shared/schemas/native-messages";
import { CANCEL_TEXT, countOf } from "../../shared/wording";
import { attentionKey, attentionOf } from "./panel-attention";
import { isClearable } from "./panel-filter";
import { copyCommand } from "./panel-id";
import type { PanelPort } from "./panel-port";
import type { PanelRequest } from "./panel-protocol";
import type { PanelData } from "./panel-refresh";
import { startResend } from "./panel-send";
import { itemKey, type PanelState } from "./panel-state";
import { holdAction, undoAction } from "./panel-undo";
import { canCancel, canPause, canResume } from "./panel-view";

export interface PanelActionDeps {
  app: HTMLElement;
  state: PanelState;
  port: Pick<PanelPort, "request" | "retry" | "hold" | "undo">;
  data: Pick<PanelData, "refresh" | "loadChecks">;
  render(): void;
  /** Remembers the folded sessions (localStorage). */
  saveCollapsed(collapsed: Set<string>): void;
  /** Remembers whether "Needs you" is folded (localStorage). */
  saveNeedsCollapsed(collapsed: boolean): void;
  /** Saves the notification setting (extension storage, read by the background). */
  saveNotify(on: boolean): void;
}

export type Control = "pause" | "resume" | "cancel";

/** Sends requests to the host; the first error (if any) shows above the list after the refresh. */
let sends = 0;
async function send(deps: PanelActionDeps, requests: PanelRequest[]): Promise<void> {
  const { state, port, data } = deps;
  state.confirming = null;
  const mine = ++sends;
  const results = await Promise.allSettled(requests.map((r) => port.request(r)));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  // An earlier action answered late does not wipe a later one's error (nor show its own over it).
  if (mine === sends || failed) state.error = failed ? (failed.reason as Error).message : null;
  await data.refresh();
}

/** Sends one control to the host. */
export function control(deps: PanelActionDeps, item: PanelItem, action: Control): Promise<void> {
  return send(deps, [{ type: "control", sessionId: item.session.id, monitorId: item.monitor.id, action }]);
}

const itemByKey = (state: PanelState, key: string | undefined) => state.list?.items.find((i) => itemKey(i) === key);

/** Moves focus to the element with this data-key (after a render), if it is there. */
function focusKey(app: HTMLElement, key: string): void {
  app.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`)?.focus();
}

/** The delegated click listener: finds the clicked `[data-action]` and does what it names. */
export function onPanelClick(deps: PanelActionDeps, event: Event): void {
  const { app, state, port, data, render } = deps;
  const button = (event.target as Element).closest<HTMLElement>("[data-action]");
  if (!button) return;
  const action = button.dataset.action as string;
  if (action === "retry") {
    port.retry();
    return;
  }
  if (action === "needs-all") {
    state.needsAll = !state.needsAll;
    render();
    focusKey(app, "needs-all");
    return;
  }
  if (action === "needs-fold") {
    state.needsCollapsed = !state.needsCollapsed;
    deps.saveNeedsCollapsed(state.needsCollapsed);
    render();
    focusKey(app, "needs-fold");
    return;
  }
  if (action.startsWith("needs-")) {
    onNeedsAction(deps, action.slice(6), button.dataset.target as string);
    return;
  }
  if (action.startsWith("bulk-")) {
    onBulkAction(deps, action.slice(5));
    return;
  }
  if (action === "tab") {
    state.filters.filter = button.dataset.tab as PanelFilter;
    render();
    void data.refresh();
    return;
  }
  if (action === "notify") {
    state.notify = (button as HTMLInputElement).checked;
    deps.saveNotify(state.notify);
    render();
    return;
  }
  const group = button.dataset.group;
  if (group && (action === "fold" || action === "older")) {
    const set = action === "fold" ? state.collapsed : state.older;
    if (!set.delete(group)) set.add(group);
    if (action === "fold") deps.saveCollapsed(state.collapsed);
    render();
    return;
  }
  if (group && action === "clear-ended") {
    const items = (state.list?.items ?? []).filter((i) => i.session.id === group && isClearable(i));
    const label = items[0]?.session.label || group;
    holdAction(
      deps,
      { text: `Cleared ${countOf(items.length, "ended monitor")} from ${label}`, hides: items.map(itemKey) },
      [{ type: "clearEnded", sessionId: group }],
    );
    return;
  }
  if (action === "copy") {
    void copyCommand(button);
    return;
  }
  if (action === "undo") {
    undoAction(deps, button.dataset.undo as string);
    return;
  }
  const key = button.dataset.item as string;
  const item = itemByKey(state, key);
  if (!item) return;
  if (action === "select") {
    if ((button as HTMLInputElement).checked) state.selected.add(key);
    else state.selected.delete(key);
    render();
  } else if (action === "cancel") {
    state.confirming = key;
    render();
    focusKey(app, `${key}:confirm`);
  } else if (action === "keep") {
    state.confirming = null;
    render();
    focusKey(app, `${key}:cancel`);
  } else if (action === "expand") {
    if (!state.expanded.delete(key)) state.expanded.add(key);
    render();
  } else if (action === "checks") {
    if (!state.checks.delete(key)) {
      state.checks.set(key, null);
      void data.loadChecks(key).then(() => render());
    }
    render();
  } else if (action === "signals") {
    if (!state.signals.delete(key)) state.signals.add(key);
    render();
  } else if (action === "confirm")
    holdAction(deps, { text: `${CANCEL_TEXT.done} ${item.monitor.name}`, hides: [] }, [
      { type: "control", sessionId: item.session.id, monitorId: item.monitor.id, action: "cancel" },
    ]);
  else if (action === "pause" || action === "resume") void control(deps, item, action);
}

function onNeedsAction(deps: PanelActionDeps, action: string, target: string): void {
  const { app, state, render } = deps;
  const entry = state.list ? attentionOf(state.list).find((a) => attentionKey(a) === target) : undefined;
  if (!entry) return;
  const { sessionId, monitorId, wakeId } = entry;
  if (action === "retry" && sessionId && wakeId) {
    const key = startResend(state, entry);
    render();
    void deps.port
      .request({ type: "retry", sessionId, wakeId })
      .then(
        () => {
          const resend = key ? state.resends.get(key) : undefined;
          if (resend) resend.accepted = true;
        },
        (error: Error) => {
          const resend = key ? state.resends.get(key) : undefined;
          if (resend) resend.error = error.message;
        },
      )
      .then(() => deps.data.refresh());
  } else if (action === "dismiss" && sessionId && wakeId) {
    holdAction(deps, { text: `Dismissed ${wakeId} of ${entry.title}`, hides: [target] }, [
      { type: "dismiss", sessionId, wakeId },
    ]);
  } else if (action === "resume" && sessionId && monitorId) {
    void send(deps, [{ type: "control", sessionId, monitorId, action: "resume" }]);
  } else if (action === "cancel") {
    state.confirming = `needs:${target}`;
    render();
    focusKey(app, `needs:${target}:needs-confirm`);
  } else if (action === "keep") {
    state.confirming = null;
    render();
    focusKey(app, `needs:${target}:needs-cancel`);
  } else if (action === "confirm" && sessionId && monitorId) {
    holdAction(deps, { text: `${CANCEL_TEXT.done} ${entry.title}`, hides: [target] }, [
      { type: "control", sessionId, monitorId, action: "cancel" },
    ]);
  } else if (action === "open") showEntry(deps, entry);
}

/** Brings the monitor (or device) an entry is about into view and focuses it, unfolding as needed. */
export function showEntry(deps: PanelActionDeps, entry: AttentionItem): void {
  const { app, state, render } = deps;
  if (entry.sessionId) state.collapsed.delete(entry.sessionId);
  if (entry.sessionId && entry.monitorId) state.expanded.add(`${entry.sessionId}/${entry.monitorId}`);
  const selector = entry.monitorId
    ? `[data-session="${CSS.escape(entry.sessionId ?? "")}"] [data-monitor="${CSS.escape(entry.monitorId)}"]`
    : entry.device
      ? `[data-device="${CSS.escape(entry.device)}"]`
      : null;
  if (!selector) return;
  render();
  // The row itself takes the focus (its outline marks it; j / k go on from it).
  const target = app.querySelector<HTMLElement>(selector);
  target?.scrollIntoView({ block: "center" });
  target?.focus({ preventScroll: true });
}

function onBulkAction(deps: PanelActionDeps, action: string): void {
  const { app, state, render } = deps;
  const items = [...state.selected].map((key) => itemByKey(state, key)).filter((i): i is PanelItem => !!i);
  const controls = (which: Control, can: (i: PanelItem) => boolean) =>
    items
      .filter(can)
      .map((i): PanelRequest => ({ type: "control", sessionId: i.session.id, monitorId: i.monitor.id, action: which }));
  if (action === "clear") {
    state.selected.clear();
    render();
  } else if (action === "cancel") {
    state.confirming = "bulk";
    render();
    focusKey(app, "bulk:bulk-confirm");
  } else if (action === "keep") {
    state.confirming = null;
    render();
    focusKey(app, "bulk:bulk-cancel");
  } else {
    const requests =
      action === "pause"
        ? controls("pause", (i) => canPause(i.monitor))
        : action === "resume"
          ? controls("resume", (i) => canResume(i.monitor.state))
          : controls("cancel", (i) => canCancel(i.monitor.state));
    if (action === "confirm") {
      state.selected.clear();
      holdAction(deps, { text: `${CANCEL_TEXT.done} ${countOf(requests.length, "monitor")}`, hides: [] }, requests);
    } else void send(deps, requests);
  }
}

/** The search box and the filter menus: a change asks the host again (the search after a pause). */
export function onPanelInput(deps: PanelActionDeps, event: Event, debounce: (run: () => void) => void): void {
  const field = event.target as HTMLInputElement | HTMLSelectElement;
  const name = field.dataset.filter;
  if (!name) return;
  const { state, data, render } = deps;
  if (name === "q") state.filters.q = field.value;
  else if (name === "kind") state.filters.kind = field.value as PanelKind | "";
  else if (name === "session" || name === "device") state.filters[name] = field.value;
  else if (name === "host") {
    state.filters.host = field.value;
    // A session of another host would hide everything: the session filter starts over.
    state.filters.session = "";
  }
  render();
  // A search shows its matches first (lib/panel-render.ts), at the top: in view under the sticky bar.
  if (name === "q") deps.app.ownerDocument.defaultView?.scrollTo(0, 0);
  if (name === "q") debounce(() => void data.refresh());
  else void data.refresh();
}

/** Escape closes the innermost open thing: a confirmation, else the open rows, check logs and signals. */
export function onPanelKey(deps: PanelActionDeps, event: KeyboardEvent): void {
  if (event.key !== "Escape") return;
  const { app, state, render } = deps;
  if (state.confirming) {
    const was = state.confirming;
    state.confirming = null;
    render();
    focusKey(
      app,
      was === "bulk" ? "bulk:bulk-cancel" : was.startsWith("needs:") ? `${was}:needs-cancel` : `${was}:cancel`,
    );
    event.preventDefault();
    return;
  }
  const active = (event.target as HTMLElement | null)?.closest?.("[data-item]") as HTMLElement | null;
  const key = active?.dataset.item;
  if (state.checks.size > 0 || state.signals.size > 0 || state.expanded.size > 0) {
    const checksOpen = key !== undefined && state.checks.has(key);
    state.checks.clear();
    state.signals.clear();
    state.expanded.clear();
    render();
    if (key) focusKey(app, checksOpen ? `${key}:checks` : `${key}:expand`);
    event.preventDefault();
  }
}
