/**
 * A job's escape sequences never reach the terminal (issue 25, finding 9): a command wait whose
 * check prints OSC 52 (writes the clipboard), OSC 0 (retitles the window), an 8-bit CSI and a bidi
 * override, then every printer that shows its text, run as the real CLI on a real terminal (a pty
 * from util-linux `script`). The terminal gets them shown (`\x1b]52;…`), never the raw bytes; into a
 * pipe the text stays exact, and --json stays the exact JSON value.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, expect, test } from "vitest";
import { BIN, TestDaemon } from "../helpers/daemon.js";

const hasScript = spawnSync("script", ["--version"]).status === 0;

/** What the check prints: clipboard write, title change, 8-bit CSI, right-to-left override. */
const HOSTILE = "build ok \x1b]52;c;aGFja2Vk\x07\x1b]0;pwned\x07 \u009b2J \u202edesrever done";
/** What a terminal would act on, left once line ends (\r\n on a pty) are taken out: C0, DEL, C1, bidi. */
const actedOn = (output: string) => output.replace(/\r?\n/g, "").match(/[\p{Cc}\u202a-\u202e\u2066-\u2069]/u)?.[0];

let daemon: TestDaemon;
let work: string;
let sid: string;

/** The real CLI on a real terminal; what the terminal received (stdout and stderr, as one pty). */
async function onTerminal(args: string[]): Promise<{ output: string; exitCode: number | undefined }> {
  const quoted = [process.execPath, BIN, ...args].map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(" ");
  const result = await execa("script", ["-qfec", quoted, "/dev/null"], {
    env: { ...daemon.env, VIGIL_HOME: daemon.home, TERM: "xterm" },
    reject: false,
    timeout: 30_000,
    stripFinalNewline: false,
  });
  return { output: result.stdout, exitCode: result.exitCode };
}

beforeAll(async () => {
  daemon = await TestDaemon.start();
  work = mkdtempSync(join(tmpdir(), "vigil-escapes-tty-"));
  writeFileSync(join(work, "hostile.sh"), `printf '%s\\n' '${HOSTILE}'\n`);
  sid = await daemon.newSession("tty");
  // The description (the monitor's name) carries a title change too.
  const armed = await daemon.cli([
    "wait",
    "--session",
    sid,
    "--until",
    "0.2",
    "--description",
    "deploy \x1b]0;pwned\x07",
    "--",
    `sh ${join(work, "hostile.sh")}`,
  ]);
  expect(armed.exitCode, String(armed.stderr)).toBe(0);
  await daemon.waitForState(sid, "mon-1", ["ready"]);
});
afterAll(async () => {
  await daemon.dispose();
  rmSync(work, { recursive: true, force: true });
});

test.each([
  ["ls", ["ls", "--session", "SID"]],
  ["ls --all", ["ls", "--all"]],
  ["show", ["show", "mon-1", "--session", "SID"]],
  ["events", ["events", "mon-1", "--session", "SID"]],
  ["checks", ["checks", "mon-1", "--session", "SID"]],
  ["inbox --all", ["inbox", "--all", "--session", "SID"]],
  ["events --json", ["events", "mon-1", "--session", "SID", "--json"]],
  ["show --json", ["show", "mon-1", "--session", "SID", "--json"]],
  ["an error echoing a hostile id", ["show", "mon-\x1b]0;pwned\x07", "--session", "SID"]],
])("%s on a terminal: escape sequences shown, never sent raw", async (_name, args) => {
  expect(hasScript, "the terminal test needs util-linux's script (Debian: apt-get install bsdutils)").toBe(true);
  const { output } = await onTerminal(args.map((word) => (word === "SID" ? sid : word)));
  expect(actedOn(output)).toBeUndefined();
  expect(output).not.toContain("\x1b");
  expect(output).toMatch(/\\(x1b|u001b)\]/);
});

test("the wake's text, taken by inbox on a terminal: every sequence shown", async () => {
  expect(hasScript).toBe(true);
  const { output } = await onTerminal(["inbox", "--session", sid]);
  expect(actedOn(output)).toBeUndefined();
  expect(output).toContain("build ok \\x1b]52;c;aGFja2Vk\\x07\\x1b]0;pwned\\x07 \\x9b2J \\u202edesrever done");
  expect(output).toContain('"deploy \\x1b]0;pwned\\x07"');
});

test("wait --follow on a terminal: the progress line and the final status line show them too", async () => {
  expect(hasScript).toBe(true);
  const { output, exitCode } = await onTerminal([
    "wait",
    "--session",
    sid,
    "--until",
    "0.2",
    "--follow",
    "--description",
    "again \x1b]0;pwned\x07",
    "--",
    `sh ${join(work, "hostile.sh")}`,
  ]);
  expect(exitCode).toBe(0);
  // The progress line's own redraw (\r, erase to end of line) is the CLI's, not the job's.
  expect(actedOn(output.replaceAll("\r\x1b[K", ""))).toBeUndefined();
  expect(output).toMatch(/mon-2 ready · met · command · again \\x1b\]0;pwned\\x07 · /);
});

test("into a pipe the text stays exact, and --json is the exact value", async () => {
  const plain = await daemon.cli(["events", "mon-1", "--session", sid]);
  expect(String(plain.stdout)).toContain(HOSTILE);
  const json = await daemon.cli(["events", "mon-1", "--session", sid, "--json"]);
  expect((JSON.parse(String(json.stdout)) as { text: string }[])[0]?.text).toContain(HOSTILE);
  expect(actedOn(String(json.stdout))).toBeUndefined();
});
