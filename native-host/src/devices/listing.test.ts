import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { ACT_SCRIPT, encodeActions, LIST_SCRIPT, parseActed, parseListing, WATCH_SCRIPT } from "./listing.js";

let home: string | undefined;
afterEach(() => {
  if (home) rmSync(home, { recursive: true, force: true });
  home = undefined;
});

/** Runs a fixed script with `sh` as a device would, in a fresh $HOME; its stdout. */
function onDevice(script: string, input = ""): Buffer {
  home ??= mkdtempSync(join(tmpdir(), "vigil-device-home-"));
  return execFileSync("sh", ["-c", script], { input, env: { PATH: process.env.PATH, HOME: home } });
}

const spool = () => join(home as string, ".vigil", "tmp", "signals");

test.each([
  ["LIST", LIST_SCRIPT],
  ["ACT", ACT_SCRIPT],
  ["WATCH", WATCH_SCRIPT],
])("%s has no single quote (it travels in one for sh -c)", (_, script) => {
  expect(script).not.toContain("'");
});

test("ACT confirms each name gone from the spool, and says when one is still there", () => {
  onDevice(LIST_SCRIPT); // makes the spool
  writeFileSync(join(spool(), "taken.json"), "{}");
  writeFileSync(join(spool(), "bad.json"), "x");
  mkdirSync(join(spool(), "stuck.json")); // rm -f cannot remove a folder
  const out = onDevice(
    ACT_SCRIPT,
    encodeActions([
      { op: "rm", name: "taken.json" },
      { op: "bad", name: "bad.json", reason: "Expected JSON\nwith a second line" },
      { op: "rm", name: "stuck.json" },
      { op: "rm", name: "already-gone.json" },
    ]),
  );
  expect(out.toString()).toBe("+\n+\n-\n+\nDONE\n");
  expect(parseActed(out, 4)).toEqual([true, true, false, true]);
  expect(existsSync(join(spool(), "taken.json"))).toBe(false);
  expect(readFileSync(join(spool(), "bad", "bad.json.reason"), "utf8")).toBe("Expected JSON with a second line\n");
});

test("LIST frames each complete file, and its output reads back", () => {
  onDevice(LIST_SCRIPT);
  writeFileSync(join(spool(), "a.json"), '{"id":"wp_1"}');
  writeFileSync(join(spool(), "b.tmp"), "not yet");
  const { entries, unsafe } = parseListing(onDevice(LIST_SCRIPT));
  expect(unsafe).toBe(0);
  expect(entries.map((e) => [e.kind, e.name, e.kind === "file" ? e.bytes.toString() : e.reason])).toEqual([
    ["file", "a.json", '{"id":"wp_1"}'],
  ]);
});

test("an answer to ACT that is cut short or out of frame is an error, never a confirmation", () => {
  expect(() => parseActed(Buffer.from("+\n"), 1)).toThrow(/did not finish/);
  expect(() => parseActed(Buffer.from("+\nDONE\n"), 2)).toThrow(/did not finish/);
  expect(() => parseActed(Buffer.from("+\n+\nDONE\n"), 1)).toThrow(/did not finish/);
  expect(() => parseActed(Buffer.from("ok\nDONE\n"), 1)).toThrow(/out of frame/);
  expect(parseActed(Buffer.from("DONE\n"), 0)).toEqual([]);
});

test("LIST skips unsafe names on the device (a newline, a leading dash, a space) and still frames every other file", () => {
  onDevice(LIST_SCRIPT);
  writeFileSync(join(spool(), "evil\nF 2 x.json"), "{}");
  writeFileSync(join(spool(), "-rf.json"), "{}");
  writeFileSync(join(spool(), "two words.json"), "{}");
  writeFileSync(join(spool(), `${"a".repeat(202)}.json`), "{}");
  writeFileSync(join(spool(), "good.json"), '{"id":"wp_1"}');
  const { entries, unsafe } = parseListing(onDevice(LIST_SCRIPT));
  expect(unsafe).toBe(4);
  expect(entries.map((e) => [e.kind, e.name, e.kind === "file" ? e.bytes.toString() : e.reason])).toEqual([
    ["file", "good.json", '{"id":"wp_1"}'],
  ]);
  expect(readdirSync(join(spool(), ".."))).toEqual(["signals"]); // its copy of each file is gone
});

test("an empty spool lists nothing and nothing unsafe", () => {
  expect(parseListing(onDevice(LIST_SCRIPT))).toEqual({ entries: [], unsafe: 0 });
});
