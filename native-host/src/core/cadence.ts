/**
 * When a polled monitor's next check is due (pure).
 *
 * The first check runs at once (design.md §3); every later one is due one interval after the one before
 * it (fixed rate). Once, at the first of those, a phase offset is added: offsets of monitors created
 * one after another are spread evenly over a window (the golden-ratio sequence), so a thousand waits
 * armed in the same second do not all start a process in the same millisecond every 5 s — the way
 * Prometheus spreads scrapes over their interval. The offset is kept from then on (it is in the due
 * times themselves), so later arrivals and endings never move another monitor's checks.
 *
 * The window grows with how many polled monitors are armed, 25 ms each (two to three times what
 * starting one check process costs the daemon on a small machine), up to the interval and never
 * past a minute: a wait armed on its own keeps its plain cadence (its second check moves by under
 * 25 ms), while 200 waits at 5 s spread over the whole interval. The price is paid once: the second
 * check comes up to one window later than a plain cadence would put it.
 *
 * A slot that has already passed (the check started late, or ran as long as its interval) is
 * skipped rather than run at once: a daemon that fell behind sheds work and keeps the spread
 * instead of starting every late check in one burst. No due time is less than an interval after
 * the one before it.
 */
export const PHASE_WINDOW_CAP_MS = 60_000;
export const SPREAD_PER_MONITOR_MS = 25;

const GOLDEN = (Math.sqrt(5) - 1) / 2;

export interface CheckTiming {
  uid: number;
  intervalMs: number;
  /** When the check just recorded was due. */
  dueAt: number;
  /** When it was recorded. */
  now: number;
  /** It was the monitor's first check (the phase is added once, after it). */
  first: boolean;
  /** How many polled monitors are armed. */
  polledMonitors: number;
}

/** The window phases are spread over, for this many armed polled monitors. */
export function spreadWindowMs(intervalMs: number, polledMonitors: number): number {
  return Math.min(intervalMs, PHASE_WINDOW_CAP_MS, Math.max(0, polledMonitors) * SPREAD_PER_MONITOR_MS);
}

/** The monitor's phase offset in a window: 0 ≤ offset < window, spread evenly by uid. */
export function phaseOffsetMs(uid: number, windowMs: number): number {
  return Math.floor(((uid * GOLDEN) % 1) * windowMs);
}

/** The next check after the one that was due at `dueAt`. */
export function nextCheckAt(check: CheckTiming): number {
  const interval = check.intervalMs;
  if (!(interval > 0)) return Math.max(check.dueAt, check.now);
  const phase = check.first ? phaseOffsetMs(check.uid, spreadWindowMs(interval, check.polledMonitors)) : 0;
  const slot = check.dueAt + interval + phase;
  return slot >= check.now ? slot : slot + Math.ceil((check.now - slot) / interval) * interval;
}
