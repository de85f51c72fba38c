/**
 * The side panel (SPEC §7): every monitor and waitpoint grouped by session, live. It talks only to
 * the background worker (a runtime port named "panel"), which relays to `vigil native-host`.
 */
import { browser } from "wxt/browser";
import type { PanelItem, PanelList } from "../../../shared/native-messages";
import type { CheckEntry, WaitpointView } from "../../../shared/schemas";
import { h, morph } from "../../lib/dom";
import type { BackgroundToPanel, LinkState, PanelRequest } from "../../lib/panel-protocol";
import {
  canCancel,
  canPause,
  canResume,
  capsuleText,
  checkLines,
  deliveryBadges,
  groupBySession,
  monitorDetails,
  quorumText,
  relativeTime,
  type SessionGroup,
  STATE_LABELS,
  waitpointBadges,
} from "../../lib/panel-view";

const app = document.getElementById("app") as HTMLElement;
const linkLabel = document.getElementById("link") as HTMLElement;

const state = {
  link: { status: "connecting" } as LinkState,
  list: null as PanelList | null,
  error: null as string | null,
  /** Sessions whose waitpoint popover is open. */
  open: new Set<string>(),
  /** The monitor whose Cancel is asking for confirmation. */
  confirming: null as string | null,
  /** Monitors whose check log is open (null while loading). */
  checks: new Map<string, CheckEntry[] | null>(),
};

// ---------------------------------------------------------------- the port to the background

let port = browser.runtime.connect({ name: "panel" });
let seq = 0;
const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();

function request(body: PanelRequest): Promise<unknown> {
  const id = ++seq;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    port.postMessage({ id, request: body });
  });
}

function onMessage(message: BackgroundToPanel) {
  if ("type" in message) {
    if (message.type === "state") {
      state.link = message.state;
      if (message.state.status === "connected") void refresh();
      else render();
    } else void refresh();
    return;
  }
  const waiting = pending.get(message.id);
  pending.delete(message.id);
  if (message.ok) waiting?.resolve(message.result);
  else waiting?.reject(new Error(message.error));
}

function attach() {
  port.onMessage.addListener(onMessage);
  // The worker was stopped (browser idle rules): connect again; it restarts on connect.
  port.onDisconnect.addListener(() => {
    setTimeout(() => {
      port = browser.runtime.connect({ name: "panel" });
      attach();
    }, 500);
  });
}
attach();

let refreshing = false;
let again = false;
async function refresh() {
  if (refreshing) {
    again = true;
    return;
  }
  refreshing = true;
  try {
    state.list = (await request({ type: "list", offset: 0, limit: 500 })) as PanelList;
    state.error = null;
    await Promise.all([...state.checks.keys()].map(loadChecks));
  } catch (error) {
    state.error = (error as Error).message;
  } finally {
    refreshing = false;
  }
  render();
  if (again) {
    again = false;
    void refresh();
  }
}

async function loadChecks(key: string) {
  const [sessionId, monitorId] = key.split("/") as [string, string];
  try {
    state.checks.set(key, (await request({ type: "checks", sessionId, monitorId })) as CheckEntry[]);
  } catch {
    state.checks.delete(key);
  }
}

async function control(item: PanelItem, action: "pause" | "resume" | "cancel") {
  state.confirming = null;
  try {
    await request({ type: "control", sessionId: item.session.id, monitorId: item.monitor.id, action });
    state.error = null;
  } catch (error) {
    state.error = (error as Error).message;
  }
  await refresh();
}

// ---------------------------------------------------------------- rendering

const time = (iso: string | null, prefix = "") =>
  iso ? h("span", { "data-time": iso, "data-prefix": prefix }, `${prefix}${relativeTime(iso, Date.now())}`) : null;

function disconnected(link: Exclude<LinkState, { status: "connected" }>): HTMLElement {
  const retry = h("button", { "data-action": "retry", "data-key": "retry" }, "Retry now");
  if (link.status === "connecting") return h("p", { class: "notice" }, "Connecting to the Vigil host…");
  if (link.status === "no_host") {
    return h(
      "section",
      { class: "notice", "data-testid": "disconnected", "data-status": link.status },
      h("h2", {}, "The Vigil host is not installed"),
      h("p", {}, "This browser could not start ", h("code", {}, "vigil native-host"), ". To install it:"),
      h(
        "ol",
        {},
        h("li", {}, "In the Vigil checkout run ", h("code", {}, "npx vigil install"), "."),
        h("li", {}, "Check it with ", h("code", {}, "npx vigil doctor"), "."),
        h("li", {}, "Then retry (the panel also retries by itself)."),
      ),
      h("p", { class: "muted" }, link.error),
      retry,
    );
  }
  return h(
    "section",
    { class: "notice", "data-testid": "disconnected", "data-status": link.status },
    h("h2", {}, "The Vigil daemon is not running"),
    h(
      "p",
      {},
      "Start it with ",
      h("code", {}, "vigil serve"),
      " (or ",
      h("code", {}, "npm start"),
      " in the checkout).",
    ),
    h("p", { class: "muted" }, link.error),
    retry,
  );
}

/** A button handled by the delegated listener; `place` keeps keys unique where one item shows twice. */
function itemButton(key: string, action: string, label: string, extra: Record<string, string> = {}, place = "") {
  return h(
    "button",
    { "data-action": action, "data-key": `${key}:${place}${action}`, "data-item": key, ...extra },
    label,
  );
}

/** Cancel, or while it asks: "Stop waiting?" with Stop waiting / Keep. */
function cancelButtons(item: PanelItem, place = ""): HTMLElement[] {
  const key = `${item.session.id}/${item.monitor.id}`;
  if (!canCancel(item.monitor.state)) return [];
  if (state.confirming !== key) return [itemButton(key, "cancel", "Cancel", {}, place)];
  return [
    h("span", {}, "Stop waiting? The job itself keeps running."),
    itemButton(key, "confirm", "Stop waiting", { class: "danger" }, place),
    itemButton(key, "keep", "Keep", {}, place),
  ];
}

function monitorRow(item: PanelItem): HTMLElement {
  const { monitor } = item;
  const key = `${item.session.id}/${monitor.id}`;
  const button = (action: string, label: string, extra: Record<string, string> = {}) =>
    itemButton(key, action, label, extra);
  const buttons: HTMLElement[] = [];
  if (canPause(monitor)) buttons.push(button("pause", "Pause"));
  if (canResume(monitor.state)) buttons.push(button("resume", "Resume"));
  buttons.push(...cancelButtons(item));
  const open = state.checks.has(key);
  // Polled kinds keep a check log; a watch streams and a waitpoint is signalled.
  if (monitor.kind !== "watch" && monitor.kind !== "signal")
    buttons.push(button("checks", open ? "Hide checks" : "Checks", { "aria-expanded": String(open) }));
  const log = state.checks.get(key);
  const details = monitorDetails(monitor, Date.now());
  return h(
    "li",
    { class: "monitor", "data-monitor": monitor.id, "data-state": monitor.state },
    h(
      "div",
      { class: "row" },
      h("span", { class: "name" }, monitor.name),
      h("span", { class: "chip", "data-state": monitor.state }, STATE_LABELS[monitor.state]),
      h("span", { class: "kind" }, monitor.kind === "signal" ? "waitpoint" : monitor.kind),
    ),
    h("div", { class: "details", "data-details": "" }, details.join(" · ")),
    monitor.lastEvent ? h("div", { class: "muted" }, monitor.lastEvent) : null,
    monitor.lastError ? h("div", { class: "error" }, monitor.lastError) : null,
    h(
      "div",
      { class: "row" },
      deliveryBadges(monitor).map((b) => h("span", { class: "badge", "data-tone": b.tone, title: b.title }, b.text)),
    ),
    buttons.length ? h("div", { class: "row actions" }, buttons) : null,
    open
      ? h(
          "ol",
          { class: "checks", "aria-label": `Recent checks of ${monitor.name}` },
          log === null || log === undefined
            ? h("li", { class: "muted" }, "loading…")
            : log.length === 0
              ? h("li", { class: "muted" }, "No checks yet.")
              : checkLines(log, Date.now()).map((line) => h("li", {}, line)),
        )
      : null,
  );
}

function waitpointCard(group: SessionGroup, waitpoint: WaitpointView): HTMLElement {
  const item = group.items.find((i) => i.monitor.id === waitpoint.id) as PanelItem;
  return h(
    "div",
    { "data-waitpoint": waitpoint.id },
    h("h2", {}, waitpoint.label, " ", h("span", { class: "chip", "data-state": item.monitor.state }, waitpoint.state)),
    waitpoint.intent ? h("p", {}, h("strong", {}, "Intent: "), waitpoint.intent) : null,
    h("p", {}, quorumText(waitpoint), waitpoint.expiresAt ? " · expires " : "", time(waitpoint.expiresAt)),
    h(
      "div",
      { class: "row" },
      waitpointBadges(waitpoint, item.monitor).map((b) =>
        h("span", { class: "badge", "data-tone": b.tone, title: b.title }, b.text),
      ),
    ),
    waitpoint.signals.length
      ? h(
          "ul",
          {},
          waitpoint.signals.map((s) =>
            h(
              "li",
              {},
              `${s.status}${s.member ? ` · ${s.member}` : ""}${s.message ? ` · ${s.message}` : ""} · via ${s.via} · `,
              time(s.at),
            ),
          ),
        )
      : h("p", { class: "muted" }, "No signals yet."),
    h("div", { class: "row actions" }, cancelButtons(item, "popover-")),
  );
}

function sessionSection(group: SessionGroup): HTMLElement {
  const capsule = capsuleText(group.waitpoints, Date.now());
  const open = state.open.has(group.id);
  return h(
    "section",
    { class: "session", "data-session": group.id },
    h("h2", {}, group.label),
    capsule
      ? h(
          "button",
          {
            class: "capsule",
            "data-action": "capsule",
            "data-key": `${group.id}:capsule`,
            "data-group": group.id,
            "data-attention": String(group.attention),
            "aria-expanded": String(open),
          },
          capsule,
        )
      : null,
    open
      ? h(
          "div",
          { class: "popover", role: "region", "aria-label": `Waitpoints of ${group.label}` },
          group.waitpoints.filter((w) => w.state === "armed").map((w) => waitpointCard(group, w)),
        )
      : null,
    h("ul", { class: "monitors" }, group.items.map(monitorRow)),
  );
}

function render() {
  linkLabel.dataset.status = state.link.status;
  linkLabel.textContent =
    state.link.status === "connected"
      ? "connected"
      : state.link.status === "connecting"
        ? "connecting…"
        : "disconnected";
  const children: HTMLElement[] = [];
  if (state.link.status !== "connected") children.push(disconnected(state.link));
  if (state.error && state.link.status === "connected") children.push(h("p", { class: "error" }, state.error));
  if (state.link.status === "connected" && state.list) {
    const groups = groupBySession(state.list.items);
    if (groups.length === 0) children.push(h("p", { class: "muted" }, "Nothing is being watched."));
    children.push(...groups.map(sessionSection));
  }
  morph(app, h("main", { id: "app", "aria-live": "polite" }, children));
}

/** Every button is handled here (delegation), so a refresh never drops a click. */
app.addEventListener("click", (event) => {
  const button = (event.target as Element).closest<HTMLElement>("[data-action]");
  if (!button) return;
  const action = button.dataset.action;
  if (action === "retry") return port.postMessage({ type: "retry" });
  if (action === "capsule") {
    const group = button.dataset.group as string;
    if (!state.open.delete(group)) state.open.add(group);
    return render();
  }
  const item = state.list?.items.find((i) => `${i.session.id}/${i.monitor.id}` === button.dataset.item);
  if (!item) return;
  const key = button.dataset.item as string;
  if (action === "cancel") {
    state.confirming = key;
    render();
    const place = button.dataset.key?.includes(":popover-") ? "popover-" : "";
    app.querySelector<HTMLElement>(`[data-key="${CSS.escape(`${key}:${place}confirm`)}"]`)?.focus();
  } else if (action === "keep") {
    state.confirming = null;
    render();
  } else if (action === "checks") {
    if (!state.checks.delete(key)) {
      state.checks.set(key, null);
      void loadChecks(key).then(() => render());
    }
    render();
  } else if (action === "confirm") void control(item, "cancel");
  else if (action === "pause" || action === "resume") void control(item, action);
});

// Relative times tick without a round trip; the list itself refreshes on the host's "changed".
setInterval(() => {
  for (const element of app.querySelectorAll<HTMLElement>("[data-time]")) {
    element.textContent = `${element.dataset.prefix ?? ""}${relativeTime(element.dataset.time ?? null, Date.now())}`;
  }
  if (state.list) {
    for (const item of state.list.items) {
      const details = app.querySelector<HTMLElement>(
        `[data-session="${CSS.escape(item.session.id)}"] [data-monitor="${CSS.escape(item.monitor.id)}"] [data-details]`,
      );
      if (details) details.textContent = monitorDetails(item.monitor, Date.now()).join(" · ");
    }
  }
}, 1000);

render();
