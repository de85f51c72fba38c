/**
 * What one check of a polled monitor produced: an observation (and the text an event would show), or
 * an error (unrunnable: the command could not start at all; `retryAt`: the source asked not to be
 * called before then, e.g. a rate limit, so the next check is due no earlier). Probes return it; the poll step reads it.
 * Design: docs/design.md §4.
 */
export type CheckResult =
  | {
      outcome: "observed";
      observation: unknown;
      eventText: string;
      /** A command's exit code and its output as printed (kept in the check log, shielded and cut). */
      output?: { exitCode: number | null; text: string };
    }
  | { outcome: "error"; error: string; unrunnable?: boolean; retryAt?: number };
