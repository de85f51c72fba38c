/**
 * `vigil wait --follow` on a real terminal (a pty from util-linux `script`): one progress line is
 * redrawn in place while the wait waits, and cleared before the final status line. Event-driven:
 * the flag that meets the wait is written only once a progress line with a check result was drawn.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, expect, test } from "vitest";
import { BIN, TestDaemon, waitFor } from "../helpers/daemon.js";

/** What a redraw starts with, and the clear at the end: carriage return, erase to end of line. */
const CLEAR = "\r\x1b[K";
const hasScript = spawnSync("script", ["--version"]).status === 0;

let daemon: TestDaemon;
let work: string;

beforeAll(async () => {
  daemon = await TestDaemon.start();
  work = mkdtempSync(join(tmpdir(), "vigil-follow-tty-"));
});
afterAll(async () => {
  await daemon.dispose();
  rmSync(work, { recursive: true, force: true });
});

test("on a terminal: progress redrawn in place, cleared at the end", async () => {
  // util-linux's `script` gives the CLI a real terminal (Debian's bsdutils, always installed).
  expect(hasScript, "the terminal test needs util-linux's script (Debian: apt-get install bsdutils)").toBe(true);
  const sid = await daemon.newSession("tty");
  const flag = join(work, "done.flag");
  const cli = `'${process.execPath}' '${BIN}' wait --session ${sid} --until 0.2 --follow -- 'test -f ${flag}'`;
  const terminal = execa("script", ["-qfec", cli, "/dev/null"], {
    env: { ...daemon.env, VIGIL_HOME: daemon.home, TERM: "xterm" },
    reject: false,
    timeout: 30_000,
  });
  let output = "";
  terminal.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const drawn = () => output.split(CLEAR).slice(1);
  await waitFor(() => drawn().some((draw) => /^mon-1 waiting · \d+s elapsed · .*last check .*: not met/.test(draw)), {
    what: "a progress line with a check result",
  });
  writeFileSync(flag, "");
  const result = await terminal;
  expect(result.exitCode).toBe(0);
  // The id first, then only redraws of one line (never a newline), then a clear and the final line.
  const start = output.indexOf("mon-1\r\n") + "mon-1\r\n".length;
  const end = output.lastIndexOf(CLEAR);
  const draws = output.slice(start, end).split(CLEAR);
  expect(draws[0]).toBe("");
  expect(draws.length).toBeGreaterThan(1);
  for (const draw of draws.slice(1)) expect(draw).toMatch(/^mon-1 waiting · [^\r\n]*$/);
  expect(output.slice(end + CLEAR.length)).toMatch(/^mon-1 ready · met · command · [^\r\n]*\r\n$/);
});
