/**
 * What one check of a polled monitor produced: an observation (and the text an event would show), or
 * an error (unrunnable: the command could not start at all). Probes return it; the poll step reads it.
 * Design: docs/design.md §4.
 */
export type CheckResult =
  | { outcome: "observed"; observation: unknown; eventText: string }
  | { outcome: "error"; error: string; unrunnable?: boolean };
