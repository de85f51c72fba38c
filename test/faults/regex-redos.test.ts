/**
 * A pattern built to backtrack (issue 25, finding 2): `^(a+)+$` against 40 a's and a "!" takes a
 * backtracking engine 2^40 steps, and conditions used to run on one, on the daemon's event loop:
 * `/healthz` stopped answering, and a restart froze again on the same monitor. Conditions run on
 * RE2 now (linear in the text), so the daemon keeps answering and the wait goes on to its ending.
 * And whatever else could stall or crash the daemon mid-check: a monitor whose check was in flight
 * at three unclean stops in a row is not resumed blindly — it ends with an error that says why.
 * On code without the fix each test fails within its bounded waits; afterEach kills the daemon
 * with SIGKILL, because a frozen one never runs its SIGTERM handler.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, expect, test } from "vitest";
import { TestDaemon, waitFor } from "../helpers/daemon.js";

let daemon: TestDaemon | undefined;
const scratch = mkdtempSync(join(tmpdir(), "vigil-redos-"));

afterEach(async () => {
  await daemon?.kill9();
  if (daemon) rmSync(daemon.home, { recursive: true, force: true });
  daemon = undefined;
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Whether /healthz answered 200 within two seconds (a frozen daemon accepts, then never answers). */
async function healthy(running: TestDaemon): Promise<boolean> {
  try {
    const response = await fetch(`${running.url}/healthz`, { signal: AbortSignal.timeout(2000) });
    return response.status === 200;
  } catch {
    return false;
  }
}

/** Polls `probe`, failing at once with a clear message whenever /healthz does not answer. */
function whileHealthy<T>(running: TestDaemon, probe: () => Promise<T>, what: string) {
  return waitFor(
    async () => {
      if (!(await healthy(running))) throw new Error("/healthz did not answer within 2 s");
      return probe();
    },
    { timeoutMs: 15_000, what },
  );
}

test("vigil wait --regex '^(a+)+$' on 40 a's and a '!': /healthz keeps answering and the wait ends", async () => {
  const running = await TestDaemon.start();
  daemon = running;
  const flag = join(scratch, "flip");
  // Unmet (the "!") until the flag exists; then the output is all a's and the same pattern matches.
  const command = `test -e ${flag} && printf aaaa || printf '${"a".repeat(40)}!'`;
  const armed = await running.cli([
    "wait",
    "--session",
    "redos",
    "--until",
    "0.5",
    "--regex",
    "^(a+)+$",
    "--",
    command,
  ]);
  expect(armed.exitCode).toBe(0);
  const id = String(armed.stdout).trim();

  const checks = async () =>
    (await running.api("GET", `/api/sessions/redos/monitors/${id}/checks`)).body as Array<{ outcome: string }>;
  const unmet = await whileHealthy(
    running,
    async () => ((await checks()).filter((c) => c.outcome === "not_met").length >= 2 ? await checks() : null),
    "two checks of the catastrophic pattern recorded as not met",
  );
  expect(unmet.every((c) => c.outcome === "not_met")).toBe(true);

  writeFileSync(flag, "");
  const ended = await whileHealthy(
    running,
    async () => {
      const view = await running.monitor("redos", id);
      return view.state === "waiting" ? null : view;
    },
    "the wait to end once the output is all a's",
  );
  expect(ended.ending.reason).toBe("met");
  expect(await healthy(running)).toBe(true);
}, 60_000);

test("a monitor whose check was in flight at three kill -9s in a row ends with an error instead of resuming", async () => {
  const running = await TestDaemon.start();
  daemon = running;
  const starts = join(scratch, "starts");
  writeFileSync(starts, "");
  // Each check leaves a line, then runs long enough to be in flight when the daemon is killed.
  const command = `echo started >> ${starts}; sleep 15`;
  const armed = await running.cli(["wait", "--session", "loop", "--until", "10", "--", command]);
  expect(armed.exitCode).toBe(0);
  const id = String(armed.stdout).trim();
  const started = () => readFileSync(starts, "utf8").split("\n").filter(Boolean).length;

  for (let crash = 1; crash <= 3; crash++) {
    await waitFor(() => started() >= crash, { timeoutMs: 10_000, what: `check ${crash} to start` });
    await running.kill9();
    await running.spawn();
  }
  const ended = await waitFor(
    async () => {
      const view = await running.monitor("loop", id);
      return view.state === "waiting" ? null : view;
    },
    { timeoutMs: 10_000, what: "the monitor to end at the third restart instead of checking again" },
  );
  expect(ended.ending.reason).toBe("error");
  expect(ended.ending.detail).toMatch(/in flight when the daemon stopped uncleanly 3 times in a row/);
  expect(started()).toBe(3);
}, 60_000);

test("a pattern RE2 cannot run is refused at arming: HTTP 400 and CLI exit 2, saying what was expected and what came", async () => {
  const running = await TestDaemon.start();
  daemon = running;
  const expected =
    "Expected a regex in RE2 syntax (matched in linear time: no backreferences, lookahead or lookbehind)";
  await running.api("POST", "/api/sessions", { id: "refused" });
  const http = await running.api("POST", "/api/sessions/refused/monitors", {
    source: { kind: "command", command: "true", condition: { path: "output", operator: "regex", value: "(a)\\1" } },
    intervalSeconds: 5,
  });
  expect(http.status).toBe(400);
  expect(http.body.error.message).toBe(
    `source.condition.value: ${expected}, got "(a)\\\\1": backreferences are not supported (invalid escape sequence: \`\\1\`)`,
  );

  const cli = await running.cli(["wait", "--session", "refused", "--until", "5", "--regex", "(?=a)", "--", "true"]);
  expect(cli.exitCode).toBe(2);
  expect(String(cli.stderr)).toContain(
    `vigil: --regex: ${expected}, got "(?=a)": lookahead and lookbehind are not supported`,
  );
  expect((await running.api("GET", "/api/sessions/refused/monitors")).body).toEqual([]);
}, 60_000);
