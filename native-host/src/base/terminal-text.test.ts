import { expect, test } from "vitest";
import { exactJson, forTerminal, showControls } from "./terminal-text.js";

const OSC52 = "\x1b]52;c;aGVsbG8=\x07";
const TITLE = "\x1b]0;owned\x07";

test("escape sequences are shown, not acted on: no ESC, BEL or other C0 control is left", () => {
  const shown = showControls(`build ok${OSC52}${TITLE}\x1b[2J\r\x08\x00done`);
  expect(shown).toBe("build ok\\x1b]52;c;aGVsbG8=\\x07\\x1b]0;owned\\x07\\x1b[2J\\x0d\\x08\\x00done");
  expect(shown).not.toMatch(/\p{Cc}/u);
});

test("newline and tab are kept where the printer means them, and shown when asked", () => {
  expect(showControls("line one\n\tline two")).toBe("line one\n\tline two");
  expect(showControls("line one\n\tline two", "")).toBe("line one\\x0a\\x09line two");
});

test("DEL, the C1 controls (8-bit CSI and OSC) and bidi overrides are shown too", () => {
  expect(showControls("a\x7fb")).toBe("a\\x7fb");
  expect(showControls("\u009b2J\u009d0;t\u009c")).toBe("\\x9b2J\\x9d0;t\\x9c");
  expect(showControls("\u0080\u009f")).toBe("\\x80\\x9f");
  expect(showControls("access\u202e\u2066level\u2069\u202c")).toBe("access\\u202e\\u2066level\\u2069\\u202c");
  expect(showControls("\u200e\u200f\u061c")).toBe("\\u200e\\u200f\\u061c");
});

test("ordinary text is untouched: accents, CJK, emoji, the ellipsis, a literal backslash", () => {
  const text = "café 東京 🚀 … a\\x1b · ¡ñ! \u00a0";
  expect(showControls(text)).toBe(text);
});

test("only a terminal gets the escaped text; a pipe or a file gets it exactly", () => {
  expect(forTerminal({ isTTY: true }, `x${OSC52}`)).toBe("x\\x1b]52;c;aGVsbG8=\\x07");
  expect(forTerminal({ isTTY: false }, `x${OSC52}`)).toBe(`x${OSC52}`);
  expect(forTerminal({}, `x${OSC52}`)).toBe(`x${OSC52}`);
});

test("JSON output stays the exact value, with no raw control a terminal would act on", () => {
  const value = {
    text: `ok${OSC52}\u009b2J\x7f\u202eevil\u2028next`,
    lines: ["a\nb", "tab\there"],
    n: 3,
    none: null,
  };
  for (const indent of [undefined, 2]) {
    const json = exactJson(value, indent);
    expect(JSON.parse(json)).toEqual(value);
    expect(json.replace(/\n/g, "")).not.toMatch(/[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/u);
    // What a terminal would get is the same text: nothing left to escape except the indentation's newlines.
    expect(forTerminal({ isTTY: true }, json)).toBe(json);
  }
  expect(exactJson(value, 2)).toContain(
    '"text": "ok\\u001b]52;c;aGVsbG8=\\u0007\\u009b2J\\u007f\\u202eevil\\u2028next"',
  );
});
