/**
 * Times in views: epoch milliseconds become ISO 8601 strings in UTC, absent times stay null.
 * Design: docs/design.md §7.
 */
export function iso(ms: number): string;
export function iso(ms: number | null | undefined): string | null;
export function iso(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}
