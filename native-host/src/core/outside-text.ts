/**
 * Text that came from outside (a check's output, an error, a page's URL, a GitHub message, a job's
 * signal) made safe to show an agent: control characters shown escaped, cut to a few hundred
 * characters with a pointer to the full text. The wake puts it only inside a fence (wake-text.ts).
 * Design: docs/design.md §6 (wake text) and §8.
 */
import { showControls } from "../base/terminal-text.js";

/** One part shown on one line (why, last error, an event): at most this many characters. */
export const OUTSIDE_LINE_LIMIT = 300;
/** A check's output or a tool's observation, shown as a block: at most this many characters. */
export const OUTSIDE_BLOCK_LIMIT = 1500;

/** Every control character shown escaped (`\x1b`, `\x0d`); newlines and tabs kept when `keepLines`. */
export const escapeControls = (text: string, keepLines: boolean): string => showControls(text, keepLines ? "\n\t" : "");

/** Where the whole of a cut part is: `vigil show ID` (why, last error), `--json` (output), `vigil events ID`. */
export type FullTextAt = `vigil ${"show" | "events"} ${string}`;

/** The note a cut part ends (or, cut from the front, starts) with. */
export const cutNote = (fullTextAt: FullTextAt): string => `(cut; full text: ${fullTextAt})`;

/**
 * `text` cut to `limit` characters, keeping its start (`"head"`) or its end (`"tail"`: a command's
 * last lines say most), with the cut marked "…" beside the kept text and a pointer to the full text.
 */
export function capText(text: string, limit: number, fullTextAt: FullTextAt, keep: "head" | "tail" = "head"): string {
  if (text.length <= limit) return text;
  return keep === "head"
    ? `${text.slice(0, limit)}… ${cutNote(fullTextAt)}`
    : `${cutNote(fullTextAt)} …${text.slice(text.length - limit)}`;
}

/** One outside part for one line: newlines and controls escaped, then capped. */
export const outsideLine = (text: string, fullTextAt: FullTextAt, limit = OUTSIDE_LINE_LIMIT): string =>
  capText(escapeControls(text, false), limit, fullTextAt);

/** An outside block for a fence: its lines kept, other controls escaped, then capped. */
export const outsideBlock = (text: string, fullTextAt: FullTextAt, keep: "head" | "tail"): string =>
  capText(escapeControls(text, true), OUTSIDE_BLOCK_LIMIT, fullTextAt, keep);
