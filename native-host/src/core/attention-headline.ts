/**
 * The first line of each "Needs you" entry (issue #38 item 2): the human reason, not the mechanism —
 * a failed waitpoint's fail message, a failed check's last output line and exit code, a delivery's
 * HTTP status and endpoint (or its adapter's error), a stall's silence and last progress. Also each
 * entry's exact label and its one primary action. Pure: texts come in shielded.
 * Design: docs/design.md §7.1.
 */
import type { AttentionAction, AttentionReason } from "../../../shared/schemas/views.js";
import { ATTENTION_REASON_TEXT, EXPIRED_TEXT, exitHeadline } from "../../../shared/wording.js";

/** A headline's length at most. */
export const HEADLINE_CHARS = 200;

/** One line of at most HEADLINE_CHARS characters, control characters made spaces; never empty. */
export function headlineOf(text: string | null, fallback: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: outside text is made one plain line
  const line = (text ?? "").replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  const chosen = line === "" ? fallback : line;
  return chosen.length > HEADLINE_CHARS ? `${chosen.slice(0, HEADLINE_CHARS - 1)}…` : chosen;
}

/** The last line of a text that holds anything but spaces ("" for none). */
export function lastNonEmptyLine(text: string | null): string {
  const lines = (text ?? "").split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = (lines[i] as string).trim();
    if (line !== "") return line;
  }
  return "";
}

/** The first line of a text that holds anything but spaces ("" for none). */
export const firstNonEmptyLine = (text: string | null): string =>
  (text ?? "").split(/\r?\n/).find((line) => line.trim() !== "") ?? "";

/**
 * A check error's headline: its last output line, and the exit code when the error names one
 * ("exit 127: sh: 1: npm: not found" → "sh: 1: npm: not found (exit 127)").
 */
export function checkErrorHeadline(error: string): string {
  const exit = /^exit (\d+)(?::\s*)?/.exec(error);
  if (exit === null) return lastNonEmptyLine(error);
  return exitHeadline(lastNonEmptyLine(error.slice(exit[0].length)), Number(exit[1]));
}

/**
 * The label: the reason's words, but a waitpoint that ran out of time reads "expired", and one that
 * ended because it stalled (fail fast) reads "stalled" — what happened, not how it ended.
 */
export const labelOf = (reason: AttentionReason, ended?: "expired" | "stalled"): string =>
  reason === "waitpoint_failed" && ended === "expired"
    ? EXPIRED_TEXT
    : reason === "waitpoint_failed" && ended === "stalled"
      ? ATTENTION_REASON_TEXT.waitpoint_stalled
      : ATTENTION_REASON_TEXT[reason];

/**
 * The one action that fits: Send again for a delivery that failed or whose arrival is unknown,
 * Resume for a paused monitor whose checks fail, Show (where the output, signals or wake are) for
 * the rest; none for what offers nothing.
 */
export function primaryOf(reason: AttentionReason, actions: AttentionAction[]): AttentionAction | null {
  const wanted: AttentionAction[] =
    reason === "needs_review" || reason === "delivery_failed" ? ["retry", "open"] : ["resume", "open"];
  return wanted.find((action) => actions.includes(action)) ?? actions[0] ?? null;
}
