/**
 * The side panel's "Needs you" list (#26): what needs the person, most urgent first, each with its
 * whole cause and what the panel may offer on it. A pure function of rows read by store/panel.ts,
 * the devices and the check load, and `now`.
 *
 * Order (rank): a check or an adapter its host refused to run (not sealed by it: engine/seals.ts), a wake whose delivery needs review (arrival unknown), a delivery that failed for
 * good, a failed or expired waitpoint, a stalled waitpoint (heartbeat overdue), a monitor whose
 * checks fail, a device in error, a delivery being retried, a wake ready but not taken for
 * WAKE_NOT_TAKEN_MS, overload. Within a rank, the oldest first. One entry per monitor: its most
 * urgent.
 * Design: docs/design.md §7.
 */
import {
  ATTENTION_REASONS,
  type AttentionAction,
  type AttentionItem,
  type AttentionReason,
  type CheckLoadView,
  type DeviceView,
} from "../../../shared/schemas/views.js";
import { formatDuration, formatSeconds, overloadText, stalledText } from "../../../shared/wording.js";
import { iso } from "../base/iso.js";
import type { MonitorAttentionRow, WakeAttentionRow } from "../store/panel.js";
import { wakeIdOf } from "../store/wakes.js";
import { HANDOVER_UNSEEN, INTERRUPTED, isUnsealed } from "./review-causes.js";
import type { isActive } from "./states.js";
import { stallOf } from "./waitpoint-view.js";

/** A wake ready this long and not taken (no push adapter took it, no agent claimed it) needs a look. */
export const WAKE_NOT_TAKEN_MS = 15 * 60_000;

/** A failed or expired waitpoint stays in the list this long after it ended (or until cleared). */
export const FAILED_WAITPOINT_SHOWN_MS = 24 * 3_600_000;

export interface AttentionInput {
  now: number;
  wakes: WakeAttentionRow[];
  monitors: MonitorAttentionRow[];
  devices: DeviceView[];
  checks: CheckLoadView;
  /** Hides secret values in a text shown to the person. */
  shield: (text: string) => string;
}

export interface Attention {
  items: AttentionItem[];
  /** The monitors (uids) with an entry: the panel's "Needs you" filter. */
  monitorUids: number[];
}

const rankOf = (reason: AttentionReason): number => ATTENTION_REASONS.indexOf(reason);

/** A wake in review whose arrival is unknown (interrupted, or handed to an agent that never showed it). */
const isUnknownArrival = (error: string | null): boolean =>
  error === null || error.startsWith(INTERRUPTED) || error.startsWith(HANDOVER_UNSEEN);

interface Entry {
  item: AttentionItem;
  uid: number | null;
}

function wakeEntry(row: WakeAttentionRow, input: AttentionInput): Entry {
  const base = {
    sessionId: row.sessionId,
    monitorId: row.monitorId,
    ...(row.waitpointId ? { waitpointId: row.waitpointId } : {}),
    wakeId: wakeIdOf(row.id),
    title: row.name,
    since: iso(row.createdAt) as string,
  };
  const error = row.lastError === null ? null : input.shield(row.lastError);
  let reason: AttentionReason;
  let detail: string;
  let actions: AttentionAction[];
  if (row.state === "needs_review") {
    reason = isUnsealed(row.lastError)
      ? "unsealed"
      : isUnknownArrival(row.lastError)
        ? "needs_review"
        : "delivery_failed";
    detail = error ?? "delivery needs review";
    actions = ["retry", "dismiss", "open"];
  } else if (row.attempts > 0) {
    reason = "delivery_retrying";
    detail = error ?? `delivery retrying after ${row.attempts} attempts`;
    actions = ["dismiss", "open"];
  } else {
    reason = "wake_not_taken";
    detail = `${wakeIdOf(row.id)} has been ready for ${formatDuration(input.now - row.createdAt)} and nothing took it: no push adapter delivered it and the session did not claim it`;
    actions = ["open"];
  }
  return { item: { reason, rank: rankOf(reason), ...base, detail, actions }, uid: row.monitorUid };
}

function monitorEntry(row: MonitorAttentionRow, input: AttentionInput): Entry | null {
  const base = {
    sessionId: row.sessionId,
    monitorId: row.monitorId,
    ...(row.waitpointId ? { waitpointId: row.waitpointId } : {}),
    ...(row.device ? { device: row.device } : {}),
    title: row.name,
  };
  const make = (reason: AttentionReason, detail: string, since: number, actions: AttentionAction[]): Entry => ({
    item: { reason, rank: rankOf(reason), ...base, detail: input.shield(detail), since: iso(since) as string, actions },
    uid: row.uid,
  });
  if (row.endingReason !== null) {
    if (row.waitpointId === null || row.endingAt === null) return null;
    const what = row.endingReason === "timeout" ? "expired" : "failed";
    return make("waitpoint_failed", row.endingDetail ?? `the waitpoint ${what}`, row.endingAt, ["open"]);
  }
  const state = row.state as Parameters<typeof isActive>[0];
  const stall =
    row.waitpointId === null
      ? null
      : stallOf({ state, createdAt: row.createdAt }, row.heartbeatTimeoutMs, row.lastSignalAt, input.now);
  if (stall) {
    const detail = `${stalledText(stall, iso(row.createdAt) as string, input.now)} (heartbeat timeout ${formatSeconds(stall.heartbeatTimeoutSeconds)})`;
    return make("waitpoint_stalled", detail, Date.parse(stall.since), ["cancel", "open"]);
  }
  if (isUnsealed(row.lastError))
    return make("unsealed", row.lastError as string, row.errorSince ?? row.createdAt, ["cancel", "open"]);
  if (row.lastError !== null) {
    const actions: AttentionAction[] = state === "paused" ? ["resume", "cancel", "open"] : ["cancel", "open"];
    return make("monitor_error", row.lastError, row.errorSince ?? row.createdAt, actions);
  }
  return null;
}

function deviceEntry(device: DeviceView, input: AttentionInput): Entry {
  const since = device.lastCollectionAt ?? device.createdAt;
  return {
    item: {
      reason: "device_error",
      rank: rankOf("device_error"),
      device: device.name,
      title: device.name,
      detail: input.shield(device.lastError ?? `the connection to ${device.ssh} is in error`),
      since,
      actions: [],
    },
    uid: null,
  };
}

function overloadEntry(checks: CheckLoadView, now: number): Entry | null {
  const text = overloadText(checks);
  if (text === null) return null;
  const since = checks.late.reduce((min, late) => Math.min(min, Date.parse(late.at)), now);
  return {
    item: {
      reason: "overload",
      rank: rankOf("overload"),
      title: "Checks are running late",
      detail: text,
      since: iso(since) as string,
      actions: [],
    },
    uid: null,
  };
}

const byUrgency = (a: AttentionItem, b: AttentionItem): number =>
  a.rank - b.rank ||
  (a.since < b.since ? -1 : a.since > b.since ? 1 : 0) ||
  (a.title < b.title ? -1 : a.title > b.title ? 1 : 0);

export function attentionList(input: AttentionInput): Attention {
  const overload = overloadEntry(input.checks, input.now);
  const entries: Entry[] = [
    ...input.wakes.map((row) => wakeEntry(row, input)),
    ...input.monitors.flatMap((row) => monitorEntry(row, input) ?? []),
    // In error (its configuration), or unreachable with the error that says why.
    ...input.devices
      .filter((device) => device.state === "error" || (device.state === "offline" && device.lastError !== null))
      .map((device) => deviceEntry(device, input)),
    ...(overload ? [overload] : []),
  ];
  entries.sort((a, b) => byUrgency(a.item, b.item));
  // One entry per monitor: its most urgent (the first in this order).
  const seen = new Set<number>();
  const kept = entries.filter((entry) => {
    if (entry.uid === null) return true;
    if (seen.has(entry.uid)) return false;
    seen.add(entry.uid);
    return true;
  });
  return { items: kept.map((entry) => entry.item), monitorUids: [...seen] };
}
