/**
 * The background worker's wiring: one HostConnection, the daemon's requests answered by observe /
 * tabs, side-panel ports relayed to the host, and the watched tabs marked. Entry: startBackground.
 * Design: docs/design.md §7.
 */
import type { Browser } from "wxt/browser";
import type { PanelList } from "../../shared/schemas/native-messages";
import { HostConnection, type NativePortLike } from "./host-connection";
import { TabMarks } from "./marks";
import { listTabs, observe, observeApi } from "./observe";
import type { BackgroundToPanel, PanelToBackground } from "./panel-protocol";
import { watchedTabs } from "./panel-view";

type BrowserApi = typeof import("wxt/browser").browser;

const RECONNECT_ALARM = "vigil-reconnect";

export function startBackground(browser: BrowserApi) {
  const panels = new Set<Browser.runtime.Port>();
  const broadcast = (message: BackgroundToPanel) => {
    for (const port of panels) port.postMessage(message);
  };
  const action = browser.action;
  const marks = new TabMarks({
    mark: async (tabId, title) => {
      await action.setBadgeText({ tabId, text: "●" });
      await action.setBadgeBackgroundColor({ tabId, color: "#2563eb" });
      await action.setTitle({ tabId, title });
    },
    unmark: async (tabId) => {
      await action.setBadgeText({ tabId, text: "" });
      await action.setTitle({ tabId, title: "Vigil" });
    },
  });
  const api = observeApi(browser);

  let refreshing: ReturnType<typeof setTimeout> | null = null;
  const refreshMarks = () => {
    if (refreshing) return;
    refreshing = setTimeout(async () => {
      refreshing = null;
      try {
        const list = (await host.request({ type: "list", offset: 0, limit: 500 })) as PanelList;
        await marks.sync(watchedTabs(list.items));
      } catch {
        // Not connected: marks are refreshed on the next connection.
      }
    }, 200);
  };

  const host = new HostConnection({
    connectNative: (name) => browser.runtime.connectNative(name) as unknown as NativePortLike,
    lastError: () => browser.runtime.lastError?.message,
    onHostRequest: (request) => (request.type === "observe" ? observe(api, request) : listTabs(api, request.id)),
    onState: (state) => {
      broadcast({ type: "state", state });
      if (state.status === "connected") refreshMarks();
    },
    onChanged: () => {
      broadcast({ type: "changed" });
      refreshMarks();
    },
  });

  browser.runtime.onConnect.addListener((port) => {
    if (port.name !== "panel") return;
    panels.add(port);
    port.postMessage({ type: "state", state: host.state } satisfies BackgroundToPanel);
    port.onMessage.addListener(async (message: PanelToBackground | { type: "retry" }) => {
      if ("type" in message) return host.retryNow();
      try {
        const result = await host.request(message.request);
        port.postMessage({ id: message.id, ok: true, result } satisfies BackgroundToPanel);
      } catch (error) {
        port.postMessage({ id: message.id, ok: false, error: (error as Error).message } satisfies BackgroundToPanel);
      }
    });
    port.onDisconnect.addListener(() => panels.delete(port));
  });

  // A worker without an open port is stopped after ~30 s idle, and a stopped worker runs no backoff
  // timer: the alarm (and browser start-up) wakes it, and a fresh worker connects at once.
  browser.runtime.onStartup.addListener(() => host.retryNow());
  browser.alarms?.create(RECONNECT_ALARM, { periodInMinutes: 1 });
  browser.alarms?.onAlarm.addListener((alarm) => {
    if (alarm.name === RECONNECT_ALARM && host.state.status !== "connected") host.retryNow();
  });

  // The toolbar button opens the side panel (Chromium; Firefox has its own sidebar button).
  browser.sidePanel?.setPanelBehavior?.({ openPanelOnActionClick: true }).catch(() => undefined);
  host.start();
  return { host, marks };
}
