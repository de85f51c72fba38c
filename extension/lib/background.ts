/**
 * The background worker's wiring: one HostConnection, the daemon's requests answered by observe /
 * tabs, side-panel ports relayed to the host, the watched tabs marked, and what needs the person
 * (toolbar badge, notifications: lib/background-attention.ts). The worker does not fetch the
 * monitor list for itself: only the browser monitors' (to mark their tabs) when one may have
 * changed, and the "Needs you" list alone after a change. Entry: startBackground.
 * Design: docs/design.md §7.
 */
import type { Browser } from "wxt/browser";
import type { PanelList } from "../../shared/schemas/native-messages";
import { BackgroundAttention } from "./background-attention";
import { HeldActions } from "./held-actions";
import { HostConnection, type NativePortLike } from "./host-connection";
import { TabMarks } from "./marks";
import { notifySetting } from "./notify-setting";
import { listTabs, observe, observeApi } from "./observe";
import type { BackgroundToPanel, PanelToBackground } from "./panel-protocol";
import { canCancel, watchedTabs } from "./panel-view";

type BrowserApi = typeof import("wxt/browser").browser;

const RECONNECT_ALARM = "vigil-reconnect";
const NOTIFICATION_PREFIX = "vigil:";

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
      // Back to the global badge (the "Needs you" count).
      await action.setBadgeText({ tabId, text: null as unknown as string });
      await action.setTitle({ tabId, title: "Vigil" });
    },
  });
  const api = observeApi(browser);
  const urlOf = (path: string) => (browser.runtime as unknown as { getURL(path: string): string }).getURL(path);
  /** How many `list` requests the worker sent for itself, by purpose (the browser suite reads it). */
  const fetches = { marks: 0, attention: 0 };

  let refreshing: ReturnType<typeof setTimeout> | null = null;
  /** Sessions with an active browser monitor: a change elsewhere cannot change the marks. */
  let browserSessions = new Set<string>();
  const refreshMarks = () => {
    if (refreshing) return;
    refreshing = setTimeout(async () => {
      refreshing = null;
      try {
        fetches.marks++;
        const list = (await host.request({
          type: "list",
          offset: 0,
          limit: 500,
          kind: "browser",
          filter: "active",
        })) as PanelList;
        await marks.sync(watchedTabs(list.items));
        // (A daemon before issue #26 ignores the filters: the items are checked here too.)
        browserSessions = new Set(
          list.items.filter((i) => i.monitor.kind === "browser" && canCancel(i.monitor.state)).map((i) => i.session.id),
        );
      } catch {
        // Not connected: marks are refreshed on the next connection.
      }
    }, 200);
  };

  const attention = new BackgroundAttention({
    request: (body) => {
      fetches.attention++;
      return host.request(body);
    },
    setBadge: async (text) => {
      await action.setBadgeText({ text });
      await action.setBadgeBackgroundColor({ color: "#b91c1c" });
    },
    notify: async (id, title, message) => {
      await browser.notifications.create(id, {
        type: "basic",
        iconUrl: urlOf("/icon-128.png"),
        title,
        message,
      });
    },
    notificationsOn: () => notifySetting.getValue(),
    now: () => Date.now(),
  });

  /** A clicked notification: the panel opens (or, if the browser will not, a tab of it) at the entry. */
  let focusPending: { key: string; at: number } | null = null;
  const openAt = async (notificationId: string) => {
    const key = notificationId.slice(NOTIFICATION_PREFIX.length);
    focusPending = { key, at: Date.now() };
    broadcast({ type: "focus", key });
    void browser.notifications.clear(notificationId).catch(() => undefined);
    if (panels.size > 0) return;
    try {
      const window = await browser.windows.getLastFocused();
      if (browser.sidePanel) await browser.sidePanel.open({ windowId: window.id as number });
      else await (browser as unknown as { sidebarAction: { open(): Promise<void> } }).sidebarAction.open();
    } catch {
      // Opening the panel wants a user gesture the browser did not see: a tab of it instead.
      await browser.tabs.create({ url: urlOf(`/sidepanel.html#focus=${encodeURIComponent(key)}`) });
    }
  };
  browser.notifications?.onClicked.addListener((id) => {
    if (id.startsWith(NOTIFICATION_PREFIX)) void openAt(id);
  });

  const host = new HostConnection({
    connectNative: (name) => browser.runtime.connectNative(name) as unknown as NativePortLike,
    lastError: () => browser.runtime.lastError?.message,
    onHostRequest: (request) => {
      if (request.type !== "observe") return listTabs(api, request.id);
      // A browser monitor reads a tab not marked yet: it was just armed.
      if (!marks.marked.has(request.tabId)) refreshMarks();
      return observe(api, request);
    },
    onState: (state) => {
      broadcast({ type: "state", state });
      if (state.status === "connected") {
        refreshMarks();
        void attention.check();
      }
    },
    onChanged: (sessionId) => {
      broadcast(sessionId ? { type: "changed", sessionId } : { type: "changed" });
      // A browser monitor of this session may have ended (a new one shows by its first observe);
      // a change without a session is the devices'.
      if (sessionId !== null && browserSessions.has(sessionId)) refreshMarks();
      attention.changed();
    },
  });

  // Dismiss, Clear ended and Cancel wait here for their Undo time, whether a panel stays open or not.
  const held = new HeldActions(
    (request) => {
      attention.acted(request);
      return host.request(request);
    },
    (key, error) => broadcast({ type: "sent", key, error }),
  );

  browser.runtime.onConnect.addListener((port) => {
    if (port.name !== "panel") return;
    panels.add(port);
    port.postMessage({ type: "state", state: host.state } satisfies BackgroundToPanel);
    if (focusPending && Date.now() - focusPending.at < 30_000) {
      port.postMessage({ type: "focus", key: focusPending.key } satisfies BackgroundToPanel);
      focusPending = null;
    }
    port.onMessage.addListener(async (message: PanelToBackground) => {
      if ("type" in message) {
        if (message.type === "hold") held.hold(message.key, message.requests);
        else if (message.type === "undo") held.undo(message.key);
        else host.retryNow();
        return;
      }
      attention.acted(message.request);
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
  /** How many panels are open (their ports): the browser suite waits on it. */
  const openPanels = () => panels.size;
  // `panels`: Firefox's browser suite drops its own extension page's port from it (test/e2e/panel-dashboard.ts).
  return { host, marks, attention, fetches, openAt, openPanels, panels, held };
}
