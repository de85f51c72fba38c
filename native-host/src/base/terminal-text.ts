/**
 * Text from outside (a check's output, a job's signal, a device's error, a server's reply) shown on
 * a terminal with its control characters visible instead of acted on, as git and OpenSSH do: an
 * escape sequence in a job's output must not write the clipboard (OSC 52), retitle the window or
 * move the cursor. Every CLI printer goes through `forTerminal` (cli/context.ts print/printError),
 * the daemon's log on a terminal too (base/log.ts). Into a pipe or a file the text stays exact (as
 * git does), and JSON output is always exact JSON (`exactJson`).
 * Design: docs/design.md §7, §8.
 */

/**
 * What a terminal acts on rather than shows: C0 controls, DEL and C1 controls (together \p{Cc};
 * 0x9b is a CSI, 0x9d an OSC on terminals that take 8-bit controls), and the bidi controls that
 * reorder what follows them on screen (Trojan Source, CVE-2021-42574), and the Unicode line and
 * paragraph separators (a line break to some readers, where a one-line text must stay one line).
 */
const CONTROLS = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/gu;

/** `\x1b` for a control of one byte's range, `\u202e` above it: readable, and what a shell's printf takes. */
function escaped(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * Every control character in `text` shown as an escape (ESC → `\x1b`), except those in `keep`
 * (by default newline and tab, which the printers mean: a wake's text is several lines).
 */
export function showControls(text: string, keep = "\n\t"): string {
  return text.replace(CONTROLS, (char) => (keep.includes(char) ? char : escaped(char)));
}

/** `text` for `stream`: controls shown visibly when it is a terminal, exact otherwise. */
export function forTerminal(stream: { isTTY?: boolean }, text: string): string {
  return stream.isTTY === true ? showControls(text) : text;
}

/**
 * JSON whose every string keeps its exact value, with no character a terminal acts on:
 * JSON.stringify already writes C0 controls as \uXXXX; DEL, C1 and bidi controls (which it writes
 * raw) become \uXXXX too, and U+2028/U+2029 (line breaks to some readers). The same JSON value
 * either way, so it is written like this to pipes and files as well.
 */
export function exactJson(value: unknown, indent?: number): string {
  return (JSON.stringify(value, null, indent) ?? "null").replace(
    /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/gu,
    (char) => `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`,
  );
}
