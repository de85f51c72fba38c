/**
 * What needs the person (the panel's pinned "Needs you" section, the header's N, the page title,
 * the toolbar badge and the notifications): the daemon's `attention` list when its reply carries
 * one, else the same list worked out here from the items (a daemon before issue #26). Pure.
 * Design: docs/design.md §7.
 */
import type { AttentionItem, AttentionReason, PanelItem, PanelList } from "../../shared/schemas/native-messages";
import { deliveryProblem, overloadText } from "../../shared/wording";

/** Most urgent first: the order the daemon sorts by too. */
export const ATTENTION_RANK: Record<AttentionReason, number> = {
  unsealed: 0,
  needs_review: 1,
  delivery_failed: 2,
  waitpoint_failed: 3,
  waitpoint_stalled: 4,
  monitor_error: 5,
  device_error: 6,
  delivery_retrying: 7,
  wake_not_taken: 8,
  overload: 9,
};

/** One entry's identity across refreshes: what it is about, and for a wake which wake. */
export const attentionKey = (a: AttentionItem): string =>
  [a.reason, a.sessionId ?? "", a.monitorId ?? a.waitpointId ?? a.device ?? "", a.wakeId ?? ""].join(":");

/**
 * What the one "Needs you" number counts (the header, the title, the badge, the section): one per
 * thing that needs the person — a monitor or waitpoint (the daemon sends its most urgent entry
 * only), a device, the overload. The "Needs you" tab filters monitors, so its count is `monitors`;
 * `needsTallyText` says how the two relate.
 */
export interface NeedsTally {
  total: number;
  monitors: number;
  devices: number;
  overload: boolean;
}

export function needsTally(attention: AttentionItem[]): NeedsTally {
  const monitors = new Set<string>();
  const devices = new Set<string>();
  let overload = false;
  for (const a of attention) {
    if (a.monitorId) monitors.add(`${a.sessionId ?? ""}/${a.monitorId}`);
    else if (a.device) devices.add(a.device);
    else if (a.reason === "overload") overload = true;
    else monitors.add(attentionKey(a));
  }
  return {
    total: monitors.size + devices.size + (overload ? 1 : 0),
    monitors: monitors.size,
    devices: devices.size,
    overload,
  };
}

/** "12 monitors · 1 device · checks running late": what the one number is made of. */
export function needsTallyText(tally: NeedsTally): string {
  const parts = [`${tally.monitors} monitor${tally.monitors === 1 ? "" : "s"}`];
  if (tally.devices) parts.push(`${tally.devices} device${tally.devices === 1 ? "" : "s"}`);
  if (tally.overload) parts.push("checks running late");
  return parts.join(" · ");
}

/** The "Needs you" list of one `list` answer. */
export function attentionOf(list: PanelList): AttentionItem[] {
  return list.attention ?? computeAttention(list);
}

/** Whether one monitor needs the person (the "Needs you" filter, worked out client-side). */
export function itemNeedsYou(item: PanelItem): boolean {
  return itemAttention(item).length > 0;
}

function itemAttention(item: PanelItem): AttentionItem[] {
  const { monitor, waitpoint, session } = item;
  const base = { sessionId: session.id, monitorId: monitor.id, title: monitor.name };
  const out: AttentionItem[] = [];
  const problem = deliveryProblem(monitor.delivery);
  if (problem && monitor.delivery) {
    const reason = problem.kind === "needs_review" ? "needs_review" : "delivery_retrying";
    out.push({
      ...base,
      reason,
      rank: ATTENTION_RANK[reason],
      wakeId: monitor.delivery.wakeId,
      detail: problem.error ?? problem.text,
      since: monitor.ending?.at ?? monitor.createdAt,
      actions: reason === "needs_review" ? ["retry", "dismiss", "open"] : ["dismiss", "open"],
    });
  }
  const active = monitor.state === "waiting" || monitor.state === "paused";
  if (active && monitor.lastError && !waitpoint) {
    out.push({
      ...base,
      reason: "monitor_error",
      rank: ATTENTION_RANK.monitor_error,
      detail: monitor.lastError,
      since: monitor.lastCheckAt ?? monitor.createdAt,
      actions: monitor.state === "paused" ? ["resume", "cancel", "open"] : ["cancel", "open"],
    });
  }
  if (waitpoint?.state === "failed" && (monitor.state === "ready" || monitor.state === "needs_review")) {
    const failure = waitpoint.signals.find((s) => s.status === "fail");
    out.push({
      ...base,
      reason: "waitpoint_failed",
      rank: ATTENTION_RANK.waitpoint_failed,
      waitpointId: waitpoint.id,
      title: waitpoint.label,
      detail: failure?.message ?? "a member reported failure",
      since: waitpoint.endedAt ?? waitpoint.createdAt,
      actions: ["open"],
    });
  }
  return out;
}

function computeAttention(list: PanelList): AttentionItem[] {
  const out = list.items.flatMap(itemAttention);
  for (const device of list.devices ?? []) {
    if (device.state === "connected") continue;
    out.push({
      reason: "device_error",
      rank: ATTENTION_RANK.device_error,
      device: device.name,
      title: device.name,
      detail: device.lastError ?? device.state,
      since: device.lastCollectionAt ?? device.createdAt,
      actions: [],
    });
  }
  const overload = list.checks ? overloadText(list.checks) : null;
  if (overload) {
    out.push({
      reason: "overload",
      rank: ATTENTION_RANK.overload,
      title: "Checks are running late",
      detail: overload,
      since: list.checks.late[0]?.at ?? new Date(0).toISOString(),
      actions: [],
    });
  }
  // Stable: equal ranks keep the list's order.
  return out
    .map((a, i) => [a, i] as const)
    .sort(([a, i], [b, j]) => a.rank - b.rank || i - j)
    .map(([a]) => a);
}

/** The scope filters a "Needs you" entry can be out of (the panel's Filters, without the import cycle). */
interface AttentionScope {
  filter: string;
  session: string;
  kind: string;
  device: string;
  host: string;
  q: string;
}

/**
 * The entries in view (issue #38 item 3): with no filter, all of them; with one, those about a
 * monitor the filtered list shows, a device entry only while no session, kind, host or search
 * narrows the list (and the device filter, if set, names it), the overload only unfiltered. Their
 * tally is the one number the header, the title, the tab and the section show.
 */
export function attentionInView(
  attention: AttentionItem[],
  scope: AttentionScope,
  items: PanelItem[],
): AttentionItem[] {
  const q = scope.q.trim();
  const filtered = scope.filter !== "all" || scope.session || scope.kind || scope.device || scope.host || q;
  if (!filtered) return attention;
  const shown = new Set(items.map((item) => `${item.session.id}/${item.monitor.id}`));
  const deviceInView = (device: string) =>
    !scope.session && !scope.kind && !scope.host && !q && (!scope.device || scope.device === device);
  return attention.filter((a) => {
    if (a.monitorId) return shown.has(`${a.sessionId ?? ""}/${a.monitorId}`);
    if (a.device) return deviceInView(a.device);
    if (a.sessionId) return !scope.session || scope.session === a.sessionId;
    return false;
  });
}
