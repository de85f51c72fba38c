/**
 * When a polled monitor's next check is due (pure).
 *
 * The first check runs at once (SPEC §3); every later one falls on the monitor's own grid,
 * `anchor + k·interval`, where the anchor is its arming time plus a phase offset. The offsets of
 * monitors created one after another are spread evenly across the interval (the golden-ratio
 * sequence), so a thousand waits armed in the same second do not all start a process in the same
 * millisecond every 5 s — the way Prometheus spreads scrapes over their interval. The offset is at
 * most one interval and never more than a minute, so the only cost is that the second check comes
 * up to that much later than a plain cadence would put it; every gap after that is the interval.
 *
 * A slot that has already passed (the check started late, or ran as long as its interval) is
 * skipped rather than run at once: a daemon that fell behind sheds work and returns to the spread
 * instead of starting every late check in one burst.
 */
export const PHASE_WINDOW_CAP_MS = 60_000;

const GOLDEN = (Math.sqrt(5) - 1) / 2;

export interface CadenceMonitor {
  uid: number;
  createdAt: number;
  intervalMs: number;
}

/** The monitor's phase offset: 0 ≤ offset < min(interval, 1 min), spread evenly by uid. */
export function phaseOffsetMs(uid: number, intervalMs: number): number {
  return Math.floor(((uid * GOLDEN) % 1) * Math.min(intervalMs, PHASE_WINDOW_CAP_MS));
}

/** The check after the one that was due at `dueAt`, recorded at `now`. */
export function nextCheckAt(monitor: CadenceMonitor, dueAt: number, now: number): number {
  const interval = monitor.intervalMs;
  if (!(interval > 0)) return Math.max(dueAt, now);
  const anchor = monitor.createdAt + phaseOffsetMs(monitor.uid, interval);
  const afterDue = Math.max(1, Math.floor((dueAt - anchor) / interval) + 1);
  const slot = anchor + afterDue * interval;
  if (slot >= now) return slot;
  return anchor + Math.ceil((now - anchor) / interval) * interval;
}
