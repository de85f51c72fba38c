/**
 * Monitor states and how they read (no zod here: the side panel imports it without the schemas).
 * Design: docs/design.md §4.3.
 */
export const MONITOR_STATES = [
  "waiting",
  "paused",
  "ready",
  "continuing",
  "finished",
  "cancelled",
  "needs_review",
] as const;
export type MonitorState = (typeof MONITOR_STATES)[number];

/** How a state reads to a person (CLI and side panel). */
export const STATE_LABELS: Record<MonitorState, string> = {
  waiting: "waiting",
  paused: "paused",
  ready: "ready",
  continuing: "continuing",
  finished: "finished",
  cancelled: "cancelled",
  needs_review: "needs review",
};
