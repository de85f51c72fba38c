/**
 * How soon a device's next collection round may start (design.md §5): never sooner than
 * ROUND_GAP_MS after the previous round ended, however often its spool changes. A burst of drops is
 * then collected by a few rounds (each takes up to 100 files) instead of one round per rename, and
 * a device that renames files in a loop costs the daemon at most one round per gap.
 */
export const ROUND_GAP_MS = 200;

/** The delay before a round wanted `wantedInMs` from `now`, when the previous one ended at `lastEndedAt`. */
export function roundDelay(lastEndedAt: number | null, now: number, wantedInMs = 0): number {
  const earliest = lastEndedAt === null ? now : lastEndedAt + ROUND_GAP_MS;
  // Never more than a gap past what was wanted, even if the clock went back.
  return Math.min(Math.max(wantedInMs, earliest - now, 0), Math.max(wantedInMs, ROUND_GAP_MS));
}
