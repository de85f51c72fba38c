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
import {
  formatDuration,
  formatSeconds,
  notTakenHeadline,
  overloadText,
  stalledHeadline,
  stalledText,
} from "../../../shared/wording.js";
import { iso } from "../base/iso.js";
import type { MonitorAttentionRow, WakeAttentionRow } from "../store/panel.js";
import { wakeIdOf } from "../store/wakes.js";
import { checkErrorHeadline, firstNonEmptyLine, headlineOf, labelOf, primaryOf } from "./attention-headline.js";
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

/** What every entry is made of: its reason, its first line, its mechanism and its actions. */
interface Cause {
  reason: AttentionReason;
  headline: string;
  detail: string;
  actions: AttentionAction[];
  /** A waitpoint that ran out of time (labelled "expired") or ended on its stall ("stalled"). */
  ended?: "expired" | "stalled";
}

/** The entry's fields its cause decides: rank, label, the headline as one line, the primary action. */
const fromCause = (cause: Cause, fallback: string) => ({
  reason: cause.reason,
  rank: rankOf(cause.reason),
  label: labelOf(cause.reason, cause.ended),
  headline: headlineOf(cause.headline, fallback),
  primary: primaryOf(cause.reason, cause.actions),
  actions: cause.actions,
});

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
  const readyMs = input.now - row.createdAt;
  let cause: Cause;
  if (row.state === "needs_review") {
    const reason = isUnsealed(row.lastError)
      ? "unsealed"
      : isUnknownArrival(row.lastError)
        ? "needs_review"
        : "delivery_failed";
    const detail = error ?? "delivery needs review";
    // The adapter's own words (e.g. "POST https://… answered 500"), its first line.
    cause = { reason, headline: firstNonEmptyLine(detail), detail, actions: ["retry", "dismiss", "open"] };
  } else if (row.attempts > 0) {
    const detail = error ?? `delivery retrying after ${row.attempts} attempts`;
    cause = { reason: "delivery_retrying", headline: firstNonEmptyLine(detail), detail, actions: ["dismiss", "open"] };
  } else {
    const detail = `${wakeIdOf(row.id)} has been ready for ${formatDuration(readyMs)} and nothing took it: no push adapter delivered it and the session did not claim it`;
    cause = { reason: "wake_not_taken", headline: notTakenHeadline(readyMs), detail, actions: ["open"] };
  }
  return { item: { ...fromCause(cause, row.name), ...base, detail: cause.detail }, uid: row.monitorUid };
}

function monitorEntry(row: MonitorAttentionRow, input: AttentionInput): Entry | null {
  const base = {
    sessionId: row.sessionId,
    monitorId: row.monitorId,
    ...(row.waitpointId ? { waitpointId: row.waitpointId } : {}),
    ...(row.device ? { device: row.device } : {}),
    title: row.name,
  };
  // Shielded whole, then cut to a line: a cut made first could split a secret.
  const make = (cause: Cause, since: number): Entry => ({
    item: {
      ...fromCause({ ...cause, headline: input.shield(cause.headline) }, row.name),
      ...base,
      detail: input.shield(cause.detail),
      since: iso(since) as string,
    },
    uid: row.uid,
  });
  // The silence until now (armed) or until it ended on it (fail fast).
  const silence = (until: number) => stalledHeadline(until - (row.lastSignalAt ?? row.createdAt), row.progressMessage);
  if (row.endingReason !== null) {
    if (row.waitpointId === null || row.endingAt === null) return null;
    const expired = row.endingReason === "timeout";
    const detail = row.endingDetail ?? `the waitpoint ${expired ? "expired" : "failed"}`;
    // A fail-fast waitpoint that stalled ends "failed" with a stall's detail (core/waitpoints.ts):
    // it ended (ranked with the failed), but what happened is a stall, and it says so.
    if (!expired && detail.startsWith("stalled:")) {
      const cause: Cause = {
        reason: "waitpoint_failed",
        headline: silence(row.endingAt),
        detail,
        actions: ["open"],
        ended: "stalled",
      };
      return make(cause, row.endingAt);
    }
    const headline = expired ? firstNonEmptyLine(detail) : (row.failMessage ?? firstNonEmptyLine(detail));
    const ended = expired ? "expired" : undefined;
    return make({ reason: "waitpoint_failed", headline, detail, actions: ["open"], ended }, row.endingAt);
  }
  const state = row.state as Parameters<typeof isActive>[0];
  const stall =
    row.waitpointId === null
      ? null
      : stallOf({ state, createdAt: row.createdAt }, row.heartbeatTimeoutMs, row.lastSignalAt, input.now);
  if (stall) {
    const detail = `${stalledText(stall, iso(row.createdAt) as string, input.now)} (heartbeat timeout ${formatSeconds(stall.heartbeatTimeoutSeconds)})`;
    const cause: Cause = {
      reason: "waitpoint_stalled",
      headline: silence(input.now),
      detail,
      actions: ["cancel", "open"],
    };
    return make(cause, Date.parse(stall.since));
  }
  const errorSince = row.errorSince ?? row.createdAt;
  if (isUnsealed(row.lastError)) {
    const detail = row.lastError as string;
    return make(
      { reason: "unsealed", headline: firstNonEmptyLine(detail), detail, actions: ["cancel", "open"] },
      errorSince,
    );
  }
  if (row.lastError !== null) {
    const actions: AttentionAction[] = state === "paused" ? ["resume", "cancel", "open"] : ["cancel", "open"];
    const cause: Cause = {
      reason: "monitor_error",
      headline: checkErrorHeadline(row.lastError),
      detail: row.lastError,
      actions,
    };
    return make(cause, errorSince);
  }
  return null;
}

function deviceEntry(device: DeviceView, input: AttentionInput): Entry {
  const since = device.lastCollectionAt ?? device.createdAt;
  const detail = device.lastError ?? `the connection to ${device.ssh} is in error`;
  return {
    item: {
      ...fromCause(
        { reason: "device_error", headline: input.shield(firstNonEmptyLine(detail)), detail, actions: [] },
        detail,
      ),
      device: device.name,
      title: device.name,
      detail: input.shield(detail),
      since,
    },
    uid: null,
  };
}

const OVERLOAD_TITLE = "Checks are running late";

function overloadEntry(checks: CheckLoadView, now: number): Entry | null {
  const text = overloadText(checks);
  if (text === null) return null;
  const since = checks.late.reduce((min, late) => Math.min(min, Date.parse(late.at)), now);
  return {
    item: {
      ...fromCause({ reason: "overload", headline: OVERLOAD_TITLE, detail: text, actions: [] }, OVERLOAD_TITLE),
      title: OVERLOAD_TITLE,
      detail: text,
      since: iso(since) as string,
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
