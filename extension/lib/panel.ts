/**
 * The side panel's wiring (design.md §7): its state, the port to the background worker, the data
 * refresh, the delegated click listener and the one-second clock, all set up synchronously, then
 * the first render. It talks only to the background (a runtime port named "panel"), which relays
 * to `vigil native-host`. Entry: startPanel, from entrypoints/sidepanel/main.ts.
 * Design: docs/design.md §7.
 */
import { onPanelClick } from "./panel-actions";
import { TICK_MS, tickTimes } from "./panel-clock";
import { PanelPort } from "./panel-port";
import { createPanelData } from "./panel-refresh";
import { type PanelPage, renderPanel } from "./panel-render";
import { createPanelState } from "./panel-state";

type BrowserApi = typeof import("wxt/browser").browser;

export function startPanel(browser: BrowserApi, document: Document): void {
  const page: PanelPage = {
    app: document.getElementById("app") as HTMLElement,
    linkLabel: document.getElementById("link") as HTMLElement,
  };
  const state = createPanelState();
  const render = () => renderPanel(page, state, Date.now());
  // `request` is only called after this function returned, so `port` is set by then.
  const data = createPanelData({ state, request: (body) => port.request(body), render });
  const port = new PanelPort(browser.runtime, data.onPush);
  const deps = { app: page.app, state, port, data, render };
  page.app.addEventListener("click", (event) => onPanelClick(deps, event));
  setInterval(() => tickTimes(page.app, state, Date.now()), TICK_MS);
  render();
}
