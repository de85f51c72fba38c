/**
 * The side panel's wiring (design.md §7): its state, the port to the background worker, the data
 * refresh, the delegated listeners (click, change, input, Escape, the keys of lib/panel-keys.ts) and the one-second clock, all set
 * up synchronously, then the first render. It talks only to the background (a runtime port named
 * "panel"), which relays to `vigil native-host`. Opened at an entry (`#focus=KEY`, a clicked
 * notification), it shows that entry once the list is in. Entry: startPanel, from
 * entrypoints/sidepanel/main.ts.
 * Design: docs/design.md §7.
 */

import { notifySetting } from "./notify-setting";
import { onPanelClick, onPanelInput, onPanelKey } from "./panel-actions";
import { attentionKey, attentionOf } from "./panel-attention";
import { TICK_MS, tickTimes } from "./panel-clock";
import { onPanelShortcut, onSkipLink } from "./panel-keys";
import { startNotifyChannels } from "./panel-notify";
import { PanelPort, type PanelPush } from "./panel-port";
import { createPanelData } from "./panel-refresh";
import { type PanelPage, renderPanel } from "./panel-render";
import { RowCache } from "./panel-row-cache";
import { createPanelState } from "./panel-state";
import { onHeldSent } from "./panel-undo";

type BrowserApi = typeof import("wxt/browser").browser;

const COLLAPSED_KEY = "vigil.collapsed";
const NEEDS_COLLAPSED_KEY = "vigil.needs-collapsed";
const SEARCH_PAUSE_MS = 250;

function readCollapsed(storage: Storage): string[] {
  try {
    const value = JSON.parse(storage.getItem(COLLAPSED_KEY) ?? "[]");
    return Array.isArray(value) ? value.filter((v) => typeof v === "string") : [];
  } catch {
    return [];
  }
}

export function startPanel(browser: BrowserApi, document: Document) {
  const window = document.defaultView as Window;
  const page: PanelPage = {
    document,
    app: document.getElementById("app") as HTMLElement,
    linkLabel: document.getElementById("link") as HTMLElement,
    needsCount: document.getElementById("needs-count") as HTMLElement,
    summary: document.getElementById("summary") as HTMLElement,
    toasts: document.getElementById("toasts") as HTMLElement,
    rows: new RowCache(),
  };
  const state = createPanelState(
    readCollapsed(window.localStorage),
    window.localStorage.getItem(NEEDS_COLLAPSED_KEY) === "true",
  );
  const render = () => renderPanel(page, state, Date.now());
  /** An entry to show once the list has it (a clicked notification). */
  let focus: string | null = new URLSearchParams(window.location.hash.slice(1)).get("focus");
  const showFocus = () => {
    if (!focus || !state.list) return;
    const entry = attentionOf(state.list).find((a) => attentionKey(a) === focus);
    // An entry past the most urgent few: show them all, so it is there to be shown.
    if (entry && !state.needsAll && !page.app.querySelector(`li[data-attention="${CSS.escape(focus)}"]`)) {
      state.needsAll = true;
      render();
    }
    const row = page.app.querySelector<HTMLElement>(`li[data-attention="${CSS.escape(focus)}"]`);
    focus = null;
    if (!row) return;
    row.scrollIntoView({ block: "start" });
    row.focus();
    if (entry) row.dataset.focused = "true";
  };
  const renderAndFocus = () => {
    render();
    showFocus();
  };
  const data = createPanelData({ state, request: (body) => port.request(body), render: renderAndFocus });
  const channelsRoot = document.getElementById("channels") as HTMLElement;
  const channels = startNotifyChannels({ root: channelsRoot, request: (body) => port.request(body) });
  const onPush = (push: PanelPush) => {
    channels.onPush(push);
    if (push.type === "focus") {
      focus = push.key;
      showFocus();
    } else if (push.type === "sent") {
      onHeldSent(state, push.key, push.error);
      void data.refresh();
    } else data.onPush(push);
  };
  const port = new PanelPort(browser.runtime, onPush);
  const deps = {
    app: page.app,
    state,
    port,
    data,
    render,
    saveCollapsed: (collapsed: Set<string>) =>
      window.localStorage.setItem(COLLAPSED_KEY, JSON.stringify([...collapsed])),
    saveNeedsCollapsed: (collapsed: boolean) => window.localStorage.setItem(NEEDS_COLLAPSED_KEY, String(collapsed)),
    saveNotify: (on: boolean) => void notifySetting.setValue(on),
  };
  let searchTimer: ReturnType<typeof setTimeout> | null = null;
  const debounce = (run: () => void) => {
    if (searchTimer) clearTimeout(searchTimer);
    searchTimer = setTimeout(run, SEARCH_PAUSE_MS);
  };
  page.app.addEventListener("click", (event) => onPanelClick(deps, event));
  page.toasts.addEventListener("click", (event) => onPanelClick(deps, event));
  page.app.addEventListener("change", (event) => onPanelInput(deps, event, debounce));
  page.app.addEventListener("input", (event) => {
    if ((event.target as HTMLElement).dataset.filter === "q") onPanelInput(deps, event, debounce);
  });
  document.addEventListener("keydown", (event) => {
    if (!onPanelShortcut(page.app, event)) onPanelKey(deps, event);
  });
  document.getElementById("skip")?.addEventListener("click", (event) => onSkipLink(page.app, event));
  setInterval(() => {
    tickTimes(page.app, Date.now());
    tickTimes(channelsRoot, Date.now());
    // A Send again's toast counts down its backoff and goes once settled (lib/panel-send.ts).
    if (state.resends.size > 0) render();
  }, TICK_MS);
  void notifySetting.getValue().then((on) => {
    state.notify = on;
    render();
  });
  render();
  // The browser suite reads these.
  const errors: string[] = [];
  window.addEventListener("error", (event) => errors.push(`${event.message} ${event.filename}:${event.lineno}`));
  window.addEventListener("unhandledrejection", (event) => errors.push(String(event.reason?.stack ?? event.reason)));
  const vigil = { state, fetches: data.fetches, busy: data.busy, port, errors };
  (window as unknown as { vigil: typeof vigil }).vigil = vigil;
}
