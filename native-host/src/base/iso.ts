/**
 * Times in views: epoch milliseconds become ISO 8601 strings in UTC, absent times stay null.
 * Exactly `new Date(ms).toISOString()`, built from the day's "YYYY-MM-DDT" (kept per day) and the
 * time of day: a panel page formats a few thousand times, and this is several times faster.
 * Design: docs/design.md §7.
 */

const DAY_MS = 86_400_000;
/** Years 0000–9999: toISOString writes them as four digits (beyond, as ±YYYYYY). */
const FOUR_DIGIT_YEARS_END = 253_402_300_800_000;
/** Day prefixes kept ("YYYY-MM-DDT" by the day's first millisecond), cleared when this many. */
const DAYS_KEPT = 4096;
const days = new Map<number, string>();

const two = (n: number): string => (n < 10 ? `0${n}` : `${n}`);
const three = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

function isoOf(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms >= FOUR_DIGIT_YEARS_END) return new Date(ms).toISOString();
  const start = ms - (ms % DAY_MS);
  let prefix = days.get(start);
  if (prefix === undefined) {
    if (days.size >= DAYS_KEPT) days.clear();
    prefix = new Date(start).toISOString().slice(0, 11);
    days.set(start, prefix);
  }
  const t = ms - start;
  const h = Math.floor(t / 3_600_000);
  const m = Math.floor((t % 3_600_000) / 60_000);
  const s = Math.floor((t % 60_000) / 1000);
  return `${prefix}${two(h)}:${two(m)}:${two(s)}.${three(t % 1000)}Z`;
}

export function iso(ms: number): string;
export function iso(ms: number | null | undefined): string | null;
export function iso(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : isoOf(ms);
}
