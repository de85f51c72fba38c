/**
 * What the side panel shows, as pure functions of the host's `list` answer and the clock (design.md §7),
 * so it is unit-tested without a browser. The DOM code in lib/panel-*.ts only renders these; the
 * wording of times and deliveries it shares with the CLI is in shared/wording.ts.
 * Design: docs/design.md §7.
 */
import type { PanelItem } from "../../shared/schemas/native-messages";
import type { CheckEntry, DeviceView, MonitorState, MonitorView, WaitpointView } from "../../shared/schemas/views";
import { countOf, deliveryProblem, ENDING_TEXT, relativeTimeCoarse } from "../../shared/wording";

export { STATE_LABELS } from "../../shared/states";

/** A watch streams a live process and a waitpoint listens for signals: neither pauses. */
export const canPause = (monitor: Pick<MonitorView, "state" | "kind">) =>
  monitor.state === "waiting" && monitor.kind !== "watch" && monitor.kind !== "signal";
export const canResume = (state: MonitorState) => state === "paused";
export const canCancel = (state: MonitorState) => state === "waiting" || state === "paused";

export interface Badge {
  tone: "warn" | "danger" | "info";
  text: string;
  /** Shown on hover: the error behind it. */
  title?: string;
}

/** The badges of one waitpoint (design.md §7), each a way a wake can fail silently. */
export function waitpointBadges(waitpoint: WaitpointView, monitor: MonitorView): Badge[] {
  const badges: Badge[] = [];
  const cap = waitpoint.maxWakesPerHour;
  if (waitpoint.heldUntil !== null) {
    badges.push({ tone: "warn", text: `wake limit reached (${cap}/h) — the next wake waits until the hour clears` });
  } else if (waitpoint.wakesThisHour >= cap - 2) {
    badges.push({ tone: "info", text: `${waitpoint.wakesThisHour}/${cap} wakes this hour` });
  }
  badges.push(...deliveryBadges(monitor));
  const failure = waitpoint.signals.find((signal) => signal.status === "fail");
  if (failure) {
    badges.push({
      tone: "danger",
      text: `failure${failure.member ? ` from ${failure.member}` : ""}${failure.message ? `: ${failure.message}` : ""}`,
    });
  }
  return badges;
}

/** `delivery retrying · N attempts` for any monitor whose wake has not landed yet. */
export function deliveryBadges(monitor: MonitorView): Badge[] {
  const problem = deliveryProblem(monitor.delivery);
  if (!problem) return [];
  const tone = problem.kind === "needs_review" ? "danger" : "warn";
  return [{ tone, text: problem.text, title: problem.error ?? undefined }];
}

export interface SessionGroup {
  id: string;
  label: string;
  items: PanelItem[];
}

/** Sessions in first-seen order; in each, active monitors first, then newest first. */
export function groupBySession(items: PanelItem[]): SessionGroup[] {
  const groups = new Map<string, SessionGroup>();
  for (const item of items) {
    let group = groups.get(item.session.id);
    if (!group) {
      group = {
        id: item.session.id,
        label: item.session.label || item.session.id,
        items: [],
      };
      groups.set(item.session.id, group);
    }
    group.items.push(item);
  }
  const active = (state: MonitorState) => (canCancel(state) ? 0 : 1);
  for (const group of groups.values()) {
    group.items.sort(
      (a, b) =>
        active(a.monitor.state) - active(b.monitor.state) ||
        Date.parse(b.monitor.createdAt) - Date.parse(a.monitor.createdAt),
    );
  }
  return [...groups.values()];
}

export const DAY_MS = 86_400_000;

/** A session's rows: what shows (active, and ended within a day) and the older ended, folded away. */
export function sessionSplit(items: PanelItem[], now: number): { recent: PanelItem[]; older: PanelItem[] } {
  const recent: PanelItem[] = [];
  const older: PanelItem[] = [];
  for (const item of items) {
    const { ending } = item.monitor;
    if (canCancel(item.monitor.state) || !ending || now - Date.parse(ending.at) < DAY_MS) recent.push(item);
    else older.push(item);
  }
  return { recent, older };
}

/** A part of a details line: plain words, or a time that ticks ("checked " + "3s ago"). */
export type DetailPart = string | { prefix: string; iso: string; future?: boolean };

/**
 * The small print under a monitor's name: last and next check, deadline, events; for a waitpoint
 * its progress and expiry instead (it never checks). Times tick (lib/panel-clock.ts).
 */
export function monitorDetailParts(item: PanelItem): DetailPart[] {
  const { monitor, waitpoint } = item;
  const parts: DetailPart[] = [];
  const time = (prefix: string, iso: string | null) => {
    if (iso) parts.push({ prefix, iso });
  };
  if (waitpoint) {
    parts.push(quorumText(waitpoint));
    if (waitpoint.state === "armed") time("expires ", waitpoint.expiresAt);
  } else time("checked ", monitor.lastCheckAt);
  if (canCancel(monitor.state)) {
    // A check whose host is away is not coming: its row says what it waits for instead.
    const checked = !waitpoint && !monitor.waitingForHost;
    if (monitor.state === "waiting" && checked && monitor.nextCheckAt && Date.parse(monitor.nextCheckAt) > 0)
      parts.push({ prefix: "next ", iso: monitor.nextCheckAt, future: true });
    // A waitpoint's deadline is its expiry, already said.
    if (!waitpoint) time("deadline ", monitor.deadlineAt);
  } else if (monitor.ending) {
    time(`${ENDING_TEXT[monitor.ending.reason]} `, monitor.ending.at);
  }
  if (monitor.consecutive) parts.push(monitor.consecutive);
  parts.push(countOf(monitor.eventCount, "event"));
  return parts;
}

/** A relative time; one that should lie ahead ("next") reads "now" once due instead of "46s ago". */
export function timeText(iso: string, now: number, future = false): string {
  if (future && Date.parse(iso) <= now) return "now";
  return relativeTimeCoarse(iso, now) ?? "";
}

/** The details line as text, read against `now` (tests; the DOM renders the parts). */
export function monitorDetails(monitor: MonitorView, now: number, waitpoint?: WaitpointView): string[] {
  return monitorDetailParts({ session: { id: monitor.sessionId, label: null }, monitor, waitpoint }).map((part) =>
    typeof part === "string" ? part : `${part.prefix}${timeText(part.iso, now, part.future)}`,
  );
}

/** Tabs an active browser monitor reads, with the monitor names (to mark them in the tab strip). */
export function watchedTabs(items: PanelItem[]): Map<number, string[]> {
  const tabs = new Map<number, string[]>();
  for (const { monitor } of items) {
    if (monitor.source.kind !== "browser" || !canCancel(monitor.state)) continue;
    const names = tabs.get(monitor.source.tabId) ?? [];
    names.push(monitor.name);
    tabs.set(monitor.source.tabId, names);
  }
  return tabs;
}

/** The waitpoint popover's quorum line: "1/2 members reported (train, eval pending)". */
export function quorumText(waitpoint: WaitpointView): string {
  const reported = new Set(waitpoint.signals.filter((s) => s.status !== "progress").map((s) => s.member));
  if (!waitpoint.members) {
    // Still open: how many came of how many needed; once over, how many came. Heartbeats are
    // counted too: "0 signals received" after a heartbeat came read as if nothing had (issue #38).
    const progress = waitpoint.heartbeats > 0 ? ` · ${countOf(waitpoint.heartbeats, "heartbeat")}` : "";
    if (waitpoint.state !== "armed" || waitpoint.received >= waitpoint.quorum)
      return `${countOf(waitpoint.received, "signal")} received${progress}`;
    return `${waitpoint.received}/${waitpoint.quorum} received${progress}`;
  }
  const pending = waitpoint.members.filter((m) => !reported.has(m));
  return `${waitpoint.received}/${waitpoint.quorum} needed${pending.length ? ` · waiting on ${pending.join(", ")}` : ""}`;
}

const OUTCOMES: Record<CheckEntry["outcome"], string> = {
  met: "met",
  not_met: "not met",
  unavailable: "unavailable",
  error: "error",
};

/** The check log, newest first: "not met · 12 ms · 3s ago — Running" (why has it not fired?). */
export function checkLines(entries: CheckEntry[], now: number, limit = 10): string[] {
  return [...entries]
    .sort((a, b) => b.seq - a.seq)
    .slice(0, limit)
    .map((entry) => {
      const parts = [OUTCOMES[entry.outcome]];
      if (entry.durationMs !== null) parts.push(`${Math.round(entry.durationMs)} ms`);
      parts.push(relativeTimeCoarse(entry.at, now) ?? "");
      return `${parts.join(" · ")}${entry.excerpt ? ` — ${entry.excerpt.split("\n")[0]?.slice(0, 200)}` : ""}`;
    });
}

/** One device's row in the panel's "Devices" section (design.md §5, §7). */
export interface DeviceRowView {
  name: string;
  state: DeviceView["state"];
  /** The first line of the error behind an offline or error state, or null. */
  error: string | null;
  /** "offline: ssh: connect to host … Connection refused", or "connected". */
  status: string;
  /** The whole row in one line: "gpu1 · offline: …". */
  headline: string;
  /** When it was last collected from (ticks: rendered as a `data-time` span), or null. */
  collectedAt: string | null;
  filesCollected: number;
}

/**
 * The "Devices" section's rows, in the daemon's order; none (no section) without devices. The last
 * error shows while the device is offline or in error; a connected device's is history.
 */
export function deviceRows(devices: DeviceView[] | undefined): DeviceRowView[] {
  return (devices ?? []).map((device) => {
    const error =
      device.state !== "connected" && device.lastError ? (device.lastError.split("\n")[0] ?? "").slice(0, 200) : null;
    const status = error ? `${device.state}: ${error}` : device.state;
    return {
      name: device.name,
      state: device.state,
      error: error || null,
      status,
      headline: `${device.name} · ${status}`,
      collectedAt: device.lastCollectionAt,
      filesCollected: device.filesCollected,
    };
  });
}

/** The small print under a device: "collected 12s ago · 3 files", or "not collected yet · 0 files". */
export function deviceDetails(row: Pick<DeviceRowView, "collectedAt" | "filesCollected">, now: number): string {
  const collected = relativeTimeCoarse(row.collectedAt, now);
  const files = `${row.filesCollected} file${row.filesCollected === 1 ? "" : "s"}`;
  return `${collected ? `collected ${collected}` : "not collected yet"} · ${files}`;
}
