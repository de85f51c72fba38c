/**
 * A check's kept output (issue #38 item 1): the tail a command check leaves in the check log, and
 * the last lines the CLI and the side panel show of it. Pure text functions; the shield runs
 * before `outputTail` (a cut made first could split a secret so the shield no longer knows it).
 * Design: docs/design.md §4.3.
 */

/** Lines a check's output tail keeps at most. */
export const OUTPUT_TAIL_LINES = 200;
/** Bytes (UTF-8) a check's output tail keeps at most. */
export const OUTPUT_TAIL_BYTES = 32 * 1024;
/** Lines `vigil show`, `vigil checks` and the panel's row show of the last check. */
export const OUTPUT_SHOWN_LINES = 20;

/** The text's last `count` lines (a final newline does not count as an empty line). */
export function lastLines(text: string, count: number): string {
  const lines = text.replace(/\r?\n$/, "").split("\n");
  return lines.slice(Math.max(0, lines.length - count)).join("\n");
}

/**
 * The last OUTPUT_TAIL_LINES lines of `text`, at most OUTPUT_TAIL_BYTES bytes: whole lines while
 * they fit, else the end of the one last line that does not.
 */
export function outputTail(text: string): string {
  const lines = lastLines(text, OUTPUT_TAIL_LINES).split("\n");
  const kept: string[] = [];
  let bytes = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] as string;
    const size = utf8Length(line) + (kept.length > 0 ? 1 : 0);
    if (bytes + size > OUTPUT_TAIL_BYTES) {
      if (kept.length === 0) kept.unshift(endOf(line, OUTPUT_TAIL_BYTES));
      break;
    }
    kept.unshift(line);
    bytes += size;
  }
  return kept.join("\n");
}

const encoder = new TextEncoder();
const utf8Length = (text: string): number => encoder.encode(text).length;

/** The end of `line` in at most `max` bytes, cut between characters. */
function endOf(line: string, max: number): string {
  const chars = Array.from(line);
  let bytes = 0;
  let start = chars.length;
  while (start > 0 && bytes + utf8Length(chars[start - 1] as string) <= max) {
    start--;
    bytes += utf8Length(chars[start] as string);
  }
  return chars.slice(start).join("");
}
