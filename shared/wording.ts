/**
 * How times and wake deliveries read to a person, for the CLI and the side panel alike: relative
 * times ("in 3h", "12s ago"), durations ("1h 2m") and a wake's delivery state ("delivery retrying ·
 * 3 attempts"). Pure functions of their arguments and an explicit `now`: no DOM, no Node APIs.
 * Where the two surfaces read differently (the panel is coarser), each has its own named function.
 * Design: docs/design.md §7.
 */

import type { ChannelView } from "./schemas/notify.js";
import type { SourceKind } from "./schemas/sources.js";
import type {
  AttentionAction,
  AttentionReason,
  CheckLoadView,
  DeliveryView,
  DeviceState,
  EndingReason,
  HostAbsence,
  Stall,
} from "./schemas/views.js";

/** A count with its noun, singular for one: "1 event", "3 events", "0 checks". */
export function countOf(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}

/**
 * A setting given in seconds, exactly, in at most two units and without zero parts: "7d" (not
 * "604800s"), "1h 30m", "2m", "45s", "0.5s".
 */
export function formatSeconds(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  const units: Array<[number, string]> = [
    [86_400, "d"],
    [3600, "h"],
    [60, "m"],
    [1, "s"],
  ];
  const parts: string[] = [];
  let rest = Math.round(seconds);
  for (const [size, unit] of units) {
    if (rest >= size && parts.length < 2) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    } else if (parts.length > 0) break;
  }
  return parts.join(" ");
}

/** A span of time in at most two units, floored: "4s", "2m 5s", "1h 2m", "1d 1h". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ${m % 60}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

const COARSE_UNITS: Array<[number, string]> = [
  [86_400, "d"],
  [3600, "h"],
  [60, "m"],
  [1, "s"],
];

/**
 * The side panel's relative time: one rounded unit ("in 3h", "12s ago", "now"), coarse enough to
 * read at a glance while it ticks each second. No time, no text (null).
 */
export function relativeTimeCoarse(iso: string | null, now: number): string | null {
  if (iso === null) return null;
  const ms = Date.parse(iso) - now;
  const seconds = Math.round(Math.abs(ms) / 1000);
  if (seconds < 1) return "now";
  const [size, unit] = COARSE_UNITS.find(([s]) => seconds >= s) as [number, string];
  // Rounded, so 2h59m reads "3h" (as the waitpoint capsule promises).
  const amount = `${Math.max(1, Math.round(seconds / size))}${unit}`;
  return ms > 0 ? `in ${amount}` : `${amount} ago`;
}

/** The CLI's relative time: two units ("in 1h 2m", "3s ago", "in 0s"); no time reads "-". */
export function relativeTimeDetailed(iso: string | null, now: number): string {
  if (iso === null) return "-";
  const delta = Date.parse(iso) - now;
  return delta >= 0 ? `in ${formatDuration(delta)}` : `${formatDuration(-delta)} ago`;
}

/**
 * When something due comes next, never "ago": "in 8s"; "due now" up to 2 s past its time (a check
 * running now, a retry about to go); "overdue by 46s" beyond (checks or the turn queue behind).
 */
export function dueText(iso: string | null, now: number): string {
  if (iso === null) return "-";
  const delta = Date.parse(iso) - now;
  if (delta >= 0) return `in ${formatDuration(delta)}`;
  return delta >= -2000 ? "due now" : `overdue by ${formatDuration(-delta)}`;
}

/**
 * A waitpoint whose heartbeat is overdue, in place of "waiting": "stalled · last heartbeat 7m ago",
 * or "stalled · no heartbeat since armed 2h ago" when no signal ever came.
 */
export function stalledText(stall: Stall, armedAt: string, now: number): string {
  return stall.lastSignalAt === null
    ? `stalled · no heartbeat since armed ${relativeTimeCoarse(armedAt, now)}`
    : `stalled · last heartbeat ${relativeTimeCoarse(stall.lastSignalAt, now)}`;
}

/**
 * A device waitpoint whose device is not connected: "waiting for its device gpu1 (offline)", "… (error)";
 * "its device gpu1 was removed". Null while connected, or for a waitpoint of this machine.
 */
export function deviceWaitText(device: string | null, state: DeviceState | "removed" | null): string | null {
  if (device === null || state === null || state === "connected") return null;
  return state === "removed" ? `its device ${device} was removed` : `waiting for its device ${device} (${state})`;
}

/** How a host that is away reads before the time it went: "stopped " (a clean stop) or "offline since ". */
export const hostAwaySince = (state: HostAbsence["state"]): string =>
  state === "stopped" ? "stopped " : "offline since ";

/** A monitor whose checks need a host that is away: "waiting for their host (beta, offline since 3m ago)". */
export function hostWaitText(away: HostAbsence, when: string): string {
  return `waiting for their host (${away.host}, ${hostAwaySince(away.state)}${when})`;
}

/**
 * The delivery state in a few words: "wake ready", "delivery retrying · 3 attempts", "delivering
 * (attempt 2)", "delivered via webhook", "delivery needs review", "wake cancelled", "wake dismissed".
 */
export function deliveryHeadline(delivery: DeliveryView): string {
  switch (delivery.state) {
    case "ready":
      if (delivery.attempts > 0) return `delivery retrying · ${countOf(delivery.attempts, "attempt")}`;
      return delivery.waitingFor ? `wake ready · waiting for ${delivery.waitingFor}` : "wake ready";
    case "delivering":
      return `delivering (attempt ${delivery.attempts})`;
    case "delivered":
      return `delivered via ${delivery.deliveredVia ?? "?"}`;
    case "needs_review":
      return "delivery needs review";
    case "cancelled":
      return delivery.dismissedAt ? "wake dismissed" : "wake cancelled";
  }
}

/**
 * The CLI's full delivery line: the headline, when a retry comes next, and the first line of the
 * last error ("delivery retrying · 3 attempts · next in 8s (last error: …)"); "" without a wake.
 */
export function deliveryText(delivery: DeliveryView | null, now: number): string {
  if (!delivery) return "";
  const error = delivery.lastError ? ` (last error: ${delivery.lastError.split("\n")[0]})` : "";
  const headline = deliveryHeadline(delivery);
  if (delivery.state === "ready" && delivery.attempts > 0)
    return `${headline} · next attempt ${dueText(delivery.nextAttemptAt, now)}${error}`;
  if (delivery.state === "needs_review") return `${headline}${error}`;
  return headline;
}

/** A fresh random mark for one turn's wake boundaries (8 hex digits). */
export const boundaryMark = (): string =>
  Array.from(globalThis.crypto.getRandomValues(new Uint8Array(4)), (byte) => byte.toString(16).padStart(2, "0")).join(
    "",
  );

/**
 * One turn's text: each wake's text, in order; with several, a line says where each starts. The
 * daemon's push adapters, `vigil inbox` and an agent's hooks hand wakes over in this one shape.
 * A wake's outside text could hold a line like "=== Wake 2 of 2 ===" (inside its fence, but a
 * reader skimming may not count fences): each boundary carries a random mark made for this turn,
 * named in the first line, which no text written before the turn can know.
 */
export function turnText(wakes: Array<{ id: string; text: string }>, mark = boundaryMark()): string {
  if (wakes.length === 1) return wakes[0]?.text ?? "";
  const boundary = (i: number, id: string) => `=== Wake ${i + 1} of ${wakes.length} (${id}) · ${mark} ===`;
  return [
    `${wakes.length} Vigil wakes follow. Each starts with a line "=== Wake N of ${wakes.length} (ID) · ${mark} ===": a line without the mark ${mark} does not start a wake.`,
    ...wakes.map((wake, i) => `${boundary(i, wake.id)}\n${wake.text}`),
  ].join("\n\n");
}

/**
 * The tag an agent's hook puts after each wake it hands over; the daemon counts the wake delivered
 * once the session's own transcript shows the tag (plain ASCII: it survives JSON escaping). The
 * daemon makes it at the claim with a random nonce, so no tag written earlier or guessed matches.
 */
export const handoverMarker = (sessionId: string, wakeId: string, nonce: string): string =>
  `[vigil ${wakeId} ${sessionId.slice(0, 8)} ${nonce}]`;

/** A wake that has not landed and wants a look: how bad, the headline, and the whole last error. */
export interface DeliveryProblem {
  /** `needs_review`: it stopped trying; `retrying`: an attempt failed and another is coming. */
  kind: "needs_review" | "retrying";
  text: string;
  error: string | null;
}

/**
 * The side panel's delivery warning: a wake that needs review, or one being retried after an error;
 * null while delivery is fine (ready, delivering, delivered, cancelled) or there is no wake.
 */
export function deliveryProblem(delivery: DeliveryView | null): DeliveryProblem | null {
  if (!delivery) return null;
  if (delivery.state === "needs_review")
    return { kind: "needs_review", text: deliveryHeadline(delivery), error: delivery.lastError };
  if (delivery.attempts > 0 && delivery.state === "ready" && delivery.lastError)
    return { kind: "retrying", text: deliveryHeadline(delivery), error: delivery.lastError };
  return null;
}

/** A lateness in words: "40 ms", "4.2 s". */
function lateness(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** How command checks keep up, on one line: "checks: 3 of 32 running · started late by p50 50 ms, p99 100 ms". */
export function checkLoadLine(load: CheckLoadView): string {
  const lag =
    load.lag.p50Ms === null || load.lag.p99Ms === null
      ? "no check started yet"
      : `started late by p50 ${lateness(load.lag.p50Ms)}, p99 ${lateness(load.lag.p99Ms)} (last ${load.lag.n})`;
  return `checks: ${load.running} of ${load.concurrency} running · ${lag}`;
}

/**
 * What overload means for the waits, or null while checks keep up: the checks waiting for a slot,
 * and the waits whose checks started over a second late in the last minute.
 */
export function overloadText(load: CheckLoadView): string | null {
  if (!load.overloaded) return null;
  const parts: string[] = [];
  if (load.waitingForSlot > 0) {
    parts.push(
      `${load.waitingForSlot} due check${load.waitingForSlot === 1 ? "" : "s"} waiting for a free slot (${load.concurrency} run at once; the earliest due start first)`,
    );
  }
  if (load.late.length > 0) {
    const worst = load.late.map((late) => `${late.name} ${lateness(late.lateMs)}`).join(", ");
    parts.push(`started over 1 s late in the last minute: ${worst}`);
  }
  return `Checks are running late — ${parts.join("; ")}. Longer intervals or fewer waits would keep them on time.`;
}

// ------------------------------------------------------------------ the side panel's words (#26)
// The panel's words for what needs the person and how a monitor ended.

/**
 * The label of a "Needs you" entry: exact, one per cause (issue #38 item 2) — a waitpoint that
 * failed reads "failed", one that ran out of time "expired" (`EXPIRED_TEXT`), never both at once.
 */
export const ATTENTION_REASON_TEXT: Record<AttentionReason, string> = {
  unsealed: "refused: not armed by this host",
  needs_review: "delivery needs review",
  delivery_failed: "delivery failed",
  delivery_retrying: "delivery retrying",
  monitor_error: "checks failing",
  waitpoint_stalled: "stalled",
  waitpoint_failed: "failed",
  device_error: "device unreachable",
  wake_not_taken: "not taken",
  overload: "checks running late",
};

/** The label of a waitpoint that ran out of time (its reason is `waitpoint_failed`). */
export const EXPIRED_TEXT = "expired";

/** What each action on a "Needs you" entry is called (CLI: `vigil retry`, `vigil cancel`, …). */
export const ATTENTION_ACTION_TEXT: Record<AttentionAction, string> = {
  retry: "Send again",
  dismiss: "Dismiss",
  resume: "Resume",
  cancel: "Cancel",
  open: "Show",
};

/** A duration in one rounded unit: "12m", "3h", "40s". */
export function durationCoarse(ms: number): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  const [size, unit] = COARSE_UNITS.find(([s]) => seconds >= s) as [number, string];
  return `${Math.max(1, Math.round(seconds / size))}${unit}`;
}

/** A stalled waitpoint's headline: "no heartbeat for 12m (last progress: step 1100 of 5000)". */
export const stalledHeadline = (silentMs: number, lastProgress: string | null): string =>
  `no heartbeat for ${durationCoarse(silentMs)}${lastProgress ? ` (last progress: ${lastProgress})` : ""}`;

/** A failed check's headline: its last output line and exit code, "2 failing tests (exit 1)". */
export const exitHeadline = (line: string, exitCode: number | null): string =>
  exitCode === null ? line : line === "" ? `exit ${exitCode}` : `${line} (exit ${exitCode})`;

/** A wake nobody took: "ready for 20m, not taken: no push adapter delivered it, the session did not claim it". */
export const notTakenHeadline = (readyMs: number): string =>
  `ready for ${durationCoarse(readyMs)}, not taken: no push adapter delivered it, the session did not claim it`;

/** A paused monitor's deadline still runs (`vigil pause`: "the deadline keeps running"): its row says so. */
export const PAUSED_DEADLINE_TEXT = "paused: the deadline keeps running";

/** How a monitor ended, as the person reads it: "met", "timed out", "rate-limited", "cancelled". */
export const ENDING_TEXT: Record<EndingReason, string> = {
  met: "met",
  failed: "failed",
  exited: "exited",
  timeout: "timed out",
  stopped: "cancelled",
  rate_limited: "rate-limited",
  error: "error",
  lost: "lost",
};

/**
 * How a monitor's kind reads to a person, in the CLI and the panel alike (issue #38 item 11): a
 * monitor of kind `signal` is a waitpoint (design.md §2: a signal is what a job sends one). JSON
 * keeps the kind as it is.
 */
export const KIND_TEXT: Record<SourceKind, string> = {
  command: "command",
  watch: "watch",
  tool: "tool",
  event: "event",
  time: "time",
  browser: "browser",
  signal: "waitpoint",
};

/** How a monitor ended, one word for CLI and panel: `ENDING_TEXT`, but a waitpoint that ran out of time "expired". */
export const endingText = (reason: EndingReason, kind: SourceKind): string =>
  reason === "timeout" && kind === "signal" ? EXPIRED_TEXT : ENDING_TEXT[reason];

/**
 * Cancel, as the panel's buttons and toast say it and the CLI's `vigil cancel` does it: one word,
 * "cancel", from the question to the toast (the monitor's state then reads "cancelled").
 */
export const CANCEL_TEXT = {
  action: "Cancel",
  ask: "Cancel? The job itself keeps running.",
  confirm: "Yes, cancel",
  keep: "Keep",
  done: "Cancelled",
} as const;

/** Why the ended monitors Clear ended leaves stay (shared/clear-ended.ts): "2 stay: their wakes are not delivered yet". */
export function clearStayText(staying: number): string {
  return staying === 1
    ? "1 stays: its wake is not delivered yet"
    : `${staying} stay: their wakes are not delivered yet`;
}

// A notification channel's words (issue #40), for `vigil notify ls` and the panel's settings alike.

/** A channel's state: paused, failing (its last message failed), works, or none sent yet. */
export type ChannelState = "paused" | "failing" | "works" | "untried";

export const CHANNEL_STATE_TEXT: Record<ChannelState, string> = {
  paused: "paused",
  failing: "failing",
  works: "works",
  untried: "no message yet",
};

export function channelStateOf(channel: Pick<ChannelView, "paused" | "lastError" | "lastSentAt">): ChannelState {
  if (channel.paused) return "paused";
  if (channel.lastError) return "failing";
  return channel.lastSentAt ? "works" : "untried";
}

/** Whose entries a channel tells of: ["every session", "host laptop"]. */
export function channelScope(channel: Pick<ChannelView, "sessions" | "host">): string[] {
  return [
    channel.sessions.length > 0 ? `sessions ${channel.sessions.join(", ")}` : "every session",
    channel.host === null ? "every host" : `host ${channel.host}`,
  ];
}
