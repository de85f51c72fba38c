import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { execa } from "execa";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BIN, TestDaemon, waitFor } from "../helpers/daemon.js";

let daemon: TestDaemon;
let n = 0;

beforeAll(async () => {
  // The sweep is off: a spool file collected here was collected by the folder watch.
  daemon = await TestDaemon.start({ env: { VIGIL_WAITPOINT_SWEEP_MS: "0" } });
});
afterAll(() => daemon.dispose());

interface Armed {
  sid: string;
  id: string;
  secret: string;
  how_to_signal: Record<string, string>;
}

async function arm(args: Record<string, unknown> = {}, on: TestDaemon = daemon): Promise<Armed> {
  const sid = `wp-${++n}`;
  await on.api("POST", "/api/sessions", { id: sid });
  const reply = await on.api("POST", `/api/sessions/${sid}/waitpoints`, {
    label: `job ${n}`,
    intent: "check the result",
    ...args,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return { sid, ...reply.body };
}

const signal = (body: unknown, on: TestDaemon = daemon) =>
  fetch(`${on.url}/webhook/signal`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

const wakes = async (sid: string, on: TestDaemon = daemon) =>
  (await on.api("GET", `/api/sessions/${sid}/wakes`)).body as any[];
const wp = async (w: Armed) => (await daemon.api("GET", `/api/sessions/${w.sid}/waitpoints/${w.id}`)).body;

/** Runs a how_to_signal line in a shell, as a job would. */
const sh = (line: string, env: Record<string, string> = {}) =>
  execa("sh", ["-c", line], { env: { ...env, VIGIL_HOME: daemon.home }, reject: false });

describe("wait_create", () => {
  test("returns id, secret and ready-to-paste lines; only a hash of the secret is stored", async () => {
    const w = await arm({ members: ["arm2", "arm6"] });
    expect(w.id).toMatch(/^wp_[0-9a-f]{12}$/);
    expect(w.secret).toMatch(/^[0-9a-f]{48}$/);
    expect(w.how_to_signal.recommended).toBe("cli");
    for (const line of ["env", "cli", "curl", "shell", "attach_to_pid"])
      expect(w.how_to_signal[line]).toContain("MEMBER");
    expect(w.how_to_signal.attach_to_pid).toContain("kill -0 PID");
    expect(w.how_to_signal.member_note).toContain("arm2, arm6");
    const view = await wp(w);
    expect(view).toMatchObject({
      state: "armed",
      quorum: 2,
      failFast: true,
      maxSignals: 1,
      progress: `job ${n} · 0/2 received`,
    });
    expect(JSON.stringify(view)).not.toContain(w.secret);
    expect(await daemon.storedText()).not.toContain(w.secret);
  });

  test.each([
    [{ label: "x" }, "intent: Invalid input"],
    [{ label: "x", intent: "y", quorum: "all" }, 'quorum: Expected a number, or "all" together with members'],
    [{ label: "x", intent: "y", members: ["a"], quorum: 2 }, "Expected a quorum of at most 1"],
    [{ label: "x", intent: "y", expires_in_hours: 721 }, "Expected at most 720 hours"],
    [{ label: "x", intent: "y", members: ["a", "a"] }, "Expected distinct member names"],
  ])("%j is refused with a clear 400", async (body, message) => {
    await daemon.api("POST", "/api/sessions", { id: "bad-wp" });
    const reply = await daemon.api("POST", "/api/sessions/bad-wp/waitpoints", body);
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toContain(message);
    expect((await daemon.api("GET", "/api/sessions/bad-wp/waitpoints")).body).toEqual([]);
  });

  test("wait_check and wait_cancel see only the owning session's waitpoints", async () => {
    const w = await arm();
    await daemon.api("POST", "/api/sessions", { id: "someone-else" });
    expect((await daemon.api("GET", `/api/sessions/someone-else/waitpoints/${w.id}`)).status).toBe(404);
    expect((await daemon.api("DELETE", `/api/sessions/someone-else/waitpoints/${w.id}`)).status).toBe(404);
    const cancelled = await daemon.api("DELETE", `/api/sessions/${w.sid}/waitpoints/${w.id}`);
    expect(cancelled.body.state).toBe("cancelled");
    expect(await wakes(w.sid)).toEqual([]);
    expect(await signal({ id: w.id, secret: w.secret, status: "ok" })).toEqual({
      status: 410,
      body: { error: { code: "ended", message: `Waitpoint ${w.id} is cancelled`, state: "cancelled" } },
    });
  });
});

describe("POST /webhook/signal", () => {
  test("every answer: 202, duplicate, 401, 404, 422, 410, 413, 400", async () => {
    const w = await arm({ members: ["a", "b"] });
    expect((await signal({ id: "wp_000000000000", secret: "x" })).status).toBe(404);
    expect(await signal({ id: w.id, secret: "nope" })).toEqual({
      status: 401,
      body: { error: { code: "wrong_secret", message: `Wrong secret for waitpoint ${w.id}` } },
    });
    const missing = await signal({ id: w.id, secret: w.secret, status: "ok" });
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({
      error: {
        code: "not_a_member",
        message: `Waitpoint ${w.id} names its members (a, b); got no member`,
        members: ["a", "b"],
      },
    });
    expect((await signal({ id: w.id, secret: w.secret, member: "c" })).body.error.message).toContain(
      'got "c", which is not one of them',
    );
    expect(await signal({ id: w.id, secret: w.secret, member: "a", key: "k1" })).toEqual({
      status: 202,
      body: { accepted: true, id: w.id, status: "ok" },
    });
    expect(await signal({ id: w.id, secret: w.secret, member: "a", key: "k1" })).toEqual({
      status: 202,
      body: { accepted: true, duplicate: true, id: w.id },
    });
    expect((await wp(w)).signals).toHaveLength(1);
    expect(
      (await signal({ id: w.id, secret: w.secret, member: "x".repeat(10), data: "y".repeat(70_000) })).status,
    ).toBe(413);
    expect((await signal("{not json")).status).toBe(400);
    expect((await signal({ id: w.id, secret: w.secret, status: "done" })).body.error.message).toContain(
      "status: Invalid option",
    );
    await signal({ id: w.id, secret: w.secret, member: "b", message: "m".repeat(2500) });
    await daemon.waitForState(w.sid, w.id, ["ready", "finished"]);
    const view = await wp(w);
    expect(view.state).toBe("resolved");
    expect(view.signals[1].message).toHaveLength(2000 + " …[cut at 2000 characters]".length);
    expect((await signal({ id: w.id, secret: w.secret, member: "a" })).body).toEqual({
      error: { code: "ended", message: `Waitpoint ${w.id} is already resolved`, state: "already resolved" },
    });
  });

  test("a burst shares commits; a signal the database refuses (NUL in text, on PostgreSQL) gets its own error, the others are stored", async () => {
    const burst = await Promise.all(Array.from({ length: 24 }, () => arm({ max_signals: 10 })));
    const bad = 7;
    const send = (w: Armed, i: number) =>
      signal({
        id: w.id,
        secret: w.secret,
        status: "progress",
        key: `b${i}`,
        message: i === bad ? "a\u0000b" : `r${i}`,
      });
    const replies = await Promise.all(burst.map(send));
    for (const [i, reply] of replies.entries())
      if (i !== bad) expect(reply.status, JSON.stringify(reply.body)).toBe(202);
    const refused = process.env.VIGIL_TEST_ENGINE === "postgres";
    expect(replies[bad]?.status).toBe(refused ? 500 : 202);
    for (const [i, w] of burst.entries()) {
      const stored = (await wp(w)).signals.map((s: { message: string }) => s.message);
      expect(stored).toEqual(i === bad && refused ? [] : [i === bad ? "a\u0000b" : `r${i}`]);
    }
    // Sent again, each is a duplicate of what was stored: the keys of a shared commit were kept.
    const again = await Promise.all(burst.map(send));
    for (const [i, reply] of again.entries()) if (i !== bad || !refused) expect(reply.body.duplicate).toBe(true);
  });

  test("random bodies never cause a 5xx, and a refused body stores nothing", async () => {
    const w = await arm();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.jsonValue(),
          fc.record(
            {
              id: fc.oneof(fc.constant(w.id), fc.string()),
              secret: fc.string(),
              status: fc.oneof(fc.constantFrom("ok", "fail", "progress"), fc.string()),
              member: fc.option(fc.string(), { nil: undefined }),
              data: fc.option(fc.jsonValue(), { nil: undefined }),
            },
            { requiredKeys: [] },
          ),
          fc.string(),
        ),
        async (body) => {
          const reply = await signal(typeof body === "string" ? body : JSON.stringify(body));
          expect(reply.status).toBeLessThan(500);
          expect(reply.status).not.toBe(202);
        },
      ),
      { numRuns: 40 },
    );
    expect((await wp(w)).signals).toEqual([]);
    expect((await wp(w)).state).toBe("armed");
  });

  test("an accepted signal survives kill -9 the instant after its 202", async () => {
    const own = await TestDaemon.start();
    try {
      const w = await arm({ max_signals: 100 }, own);
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          signal({ id: w.id, secret: w.secret, status: "progress", message: `m${i}` }, own),
        ),
      );
      expect(answers.every((a) => a.status === 202)).toBe(true);
      await own.kill9();
      await own.spawn();
      const view = (await own.api("GET", `/api/sessions/${w.sid}/waitpoints/${w.id}`)).body;
      expect(view.signals.map((s: any) => s.message).sort()).toEqual(
        Array.from({ length: 20 }, (_, i) => `m${i}`).sort(),
      );
    } finally {
      await own.dispose();
    }
  });

  test("misses are counted per id: others' misses never lock out the right secret", async () => {
    const own = await TestDaemon.start();
    try {
      const [w, other] = [await arm({ max_signals: 10 }, own), await arm({}, own)];
      const wrong = (id: string) => signal({ id, secret: "0".repeat(48) }, own);
      for (let i = 0; i < 60; i++) expect((await wrong(w.id)).status).toBe(401);
      expect((await wrong(w.id)).status).toBe(429);
      // Over its budget, the right secret is still heard; another waitpoint's misses are its own.
      expect((await signal({ id: w.id, secret: w.secret, status: "progress" }, own)).status).toBe(202);
      expect((await wrong(other.id)).status).toBe(401);

      for (let i = 0; i < 60; i++) expect((await wrong(`wp_${String(i).padStart(12, "0")}`)).status).toBe(404);
      expect((await wrong("wp_ffffffffffff")).status).toBe(429);
      // Once unknown ids are over budget a wrong secret answers 429 too: a prober cannot tell ids apart.
      expect((await wrong(other.id)).status).toBe(429);
      expect((await signal({ id: other.id, secret: other.secret }, own)).status).toBe(202);

      const log = readFileSync(join(own.home, "vigil.log"), "utf8");
      expect(log.match(/WARN signal refused \(unknown\)/g)).toHaveLength(60);
      // 60 identical lines for one id: the log writes 10 a minute and counts the rest.
      expect(log.match(/WARN signal refused \(wrong_secret\)/g)).toHaveLength(11);
      // Past the budget, one line per id and window instead of one per miss.
      expect(log.match(/signal misses over budget/g)).toHaveLength(3);
    } finally {
      await own.dispose();
    }
  });

  test("a body that is not JSON (a web page's text/plain or form POST) is refused unread and never counts", async () => {
    const own = await TestDaemon.start();
    try {
      const w = await arm({}, own);
      for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
        for (let i = 0; i < 30; i++) {
          const r = await fetch(`${own.url}/webhook/signal`, {
            method: "POST",
            headers: { "content-type": type },
            body: JSON.stringify({ id: w.id, secret: "0".repeat(48) }),
          });
          expect(r.status).toBe(415);
          expect(((await r.json()) as { error: { message: string } }).error.message).toBe(
            `Expected content-type: application/json, got ${JSON.stringify(type)}`,
          );
        }
      }
      expect((await signal({ id: w.id, secret: "0".repeat(48) }, own)).status).toBe(401);
      const plusJson = await fetch(`${own.url}/webhook/signal`, {
        method: "POST",
        headers: { "content-type": "application/vnd.vigil+json; charset=utf-8" },
        body: JSON.stringify({ id: w.id, secret: w.secret }),
      });
      expect(plusJson.status).toBe(202);
    } finally {
      await own.dispose();
    }
  });
});

describe("semantics", () => {
  test("a barrier of three with quorum 2 wakes once, 3 s after the second, with every signal recorded by then", async () => {
    const w = await arm({ label: "T2 ladder", intent: "all arms", members: ["arm2", "arm6", "arm8"], quorum: 2 });
    await signal({ id: w.id, secret: w.secret, member: "arm2", status: "progress", message: "step 100" });
    await signal({ id: w.id, secret: w.secret, member: "arm2", message: "loss 0.31" });
    await signal({ id: w.id, secret: w.secret, member: "arm6", message: "loss 0.29" });
    expect((await wp(w)).state).toBe("armed"); // settling
    await signal({ id: w.id, secret: w.secret, member: "arm8", status: "fail", message: "OOM" });
    const [wake] = await waitFor(async () => {
      const list = await wakes(w.sid);
      return list.length > 0 ? list : null;
    });
    expect(wake.payload.reason).toBe("failed");
    expect(wake.payload.events.map((e: any) => e.text)).toEqual([
      "progress from arm2: step 100",
      "ok from arm2: loss 0.31",
      "ok from arm6: loss 0.29",
      "fail from arm8: OOM",
    ]);
    expect(wake.text).toContain("Your intent when you armed it: all arms");
    expect(Date.parse(wake.createdAt) - Date.parse((await wp(w)).signals[2].at)).toBeGreaterThanOrEqual(2900);
    expect(await wakes(w.sid)).toHaveLength(1);
  });

  test("fail_fast wakes on the first fail; progress wakes nobody", async () => {
    const w = await arm({ members: ["a", "b", "c"] });
    await signal({ id: w.id, secret: w.secret, member: "a", status: "progress" });
    await signal({ id: w.id, secret: w.secret, member: "b", status: "fail", message: "exit=1" });
    const ended = await daemon.waitForState(w.sid, w.id, ["ready"]);
    expect(ended.ending).toMatchObject({ reason: "failed" });
    expect(ended.ending.detail).toBe("1 of 3 members reported (quorum 3, fail fast): b fail");
  });

  test("only heartbeats, then the deadline: the notice says so", async () => {
    const w = await arm({ expires_in_hours: 0.0005 }); // 1.8 s
    await signal({ id: w.id, secret: w.secret, status: "progress", message: "alive at step 12000" });
    const ended = await daemon.waitForState(w.sid, w.id, ["ready"]);
    expect(ended.ending).toMatchObject({
      reason: "timeout",
      detail: "only heartbeats arrived (1 progress report), no ok or fail",
    });
    const [wake] = await wakes(w.sid);
    expect(wake.text).toContain("it expired before it resolved");
    expect(wake.text).toContain("progress: alive at step 12000");
  });
});

describe("vigil signal (the real CLI)", () => {
  const cli = (args: string[], env: Record<string, string> = {}, home = daemon.home) =>
    execa(process.execPath, [BIN, "--home", home, "signal", ...args], { env, reject: false });

  test("exit codes: 0 accepted and already resolved, 1 refused, 2 usage and missing id", async () => {
    const w = await arm();
    const none = await cli([]);
    expect(none.exitCode).toBe(2);
    expect(none.stdout).toContain("Usage: vigil signal");
    expect((await cli(["--exit-code", "0"])).exitCode).toBe(2);
    expect((await cli(["--id", w.id, "--secret", w.secret, "--exit-code", "x"])).exitCode).toBe(2);
    const wrong = await cli(["--id", w.id, "--secret", "bad", "--exit-code", "0"]);
    expect(wrong.exitCode).toBe(1);
    expect(wrong.stderr).toBe(`vigil: refused (401): Wrong secret for waitpoint ${w.id}`);
    const ok = await cli(["--exit-code", "3", "--data", "tail of the log"], {
      VIGIL_SIGNAL_ID: w.id,
      VIGIL_SIGNAL_SECRET: w.secret,
    });
    expect(ok.exitCode).toBe(0);
    expect(ok.stdout).toBe(`accepted: ${w.id} fail`);
    const again = await cli(["--id", w.id, "--secret", w.secret]);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toBe(`${w.id}: Waitpoint ${w.id} is already resolved`);
    const [wake] = await waitFor(async () => ((await wakes(w.sid)).length ? wakes(w.sid) : null));
    // One signal is one line inside its fence: its newline is shown escaped (core/outside-text.ts).
    expect(wake.text).toContain("fail: exit=3\\x0adata: tail of the log");
  });

  test("unreachable: spooled (exit 0), or exit 1 with --no-spool; the spool is collected at start", async () => {
    const own = await TestDaemon.start();
    const w = await arm({}, own);
    await own.stop();
    const refused = await cli(["--id", w.id, "--secret", w.secret, "--no-spool"], {}, own.home);
    expect(refused.exitCode).toBe(1);
    const spooled = await cli(
      ["--id", w.id, "--secret", w.secret, "--message", "written during a restart"],
      {},
      own.home,
    );
    expect(spooled.exitCode).toBe(0);
    expect(spooled.stdout).toMatch(/spooled to .*\/tmp\/signals\/\d+-\d+-[0-9a-f]{12}\.json/);
    await own.spawn();
    const ended = await own.waitForState(w.sid, w.id, ["ready"]);
    expect(ended.lastEvent).toBe("ok: written during a restart");
    expect(readdirSync(join(own.home, "tmp", "signals")).filter((f) => f.endsWith(".json"))).toEqual([]);
    await own.dispose();
  });
});

describe("the spool", () => {
  const spoolDir = () => join(daemon.home, "tmp", "signals");
  const drop = (name: string, body: unknown) => {
    writeFileSync(join(spoolDir(), `${name}.tmp`), typeof body === "string" ? body : JSON.stringify(body));
    renameSync(join(spoolDir(), `${name}.tmp`), join(spoolDir(), `${name}.json`));
  };

  test("a file renamed in while running is collected by the folder watch (sweep off); a reused name is heard once", async () => {
    const w = await arm({ max_signals: 5 });
    drop("job-1", { id: w.id, secret: w.secret, message: "first" });
    await waitFor(async () => (await wp(w)).signals.length === 1, { timeoutMs: 5000, what: "the watch to collect" });
    drop("job-1", { id: w.id, secret: w.secret, message: "same name again" });
    await waitFor(() => !existsSync(join(spoolDir(), "job-1.json")));
    expect((await wp(w)).signals.map((s: any) => s.message)).toEqual(["first"]);
  });

  test("a half-written .tmp is never read; refused files are parked under bad/ with the reason", async () => {
    const w = await arm({ members: ["a"] });
    writeFileSync(join(spoolDir(), "partial.tmp"), '{"id":"');
    drop("no-member", { id: w.id, secret: w.secret });
    drop("garbage", "{{{");
    await waitFor(() => existsSync(join(spoolDir(), "bad", "garbage.json.reason")));
    await waitFor(() => existsSync(join(spoolDir(), "bad", "no-member.json.reason")));
    expect(readFileSync(join(spoolDir(), "bad", "no-member.json.reason"), "utf8")).toContain("not_a_member: Waitpoint");
    expect(readFileSync(join(spoolDir(), "bad", "garbage.json.reason"), "utf8")).toContain("Expected a JSON signal");
    expect(existsSync(join(spoolDir(), "partial.tmp"))).toBe(true);
    expect((await wp(w)).signals).toEqual([]);
  });
});

describe("the seed's examples, with our names", () => {
  test("the training-run one-liner, as docs/waitpoints.md writes it: the env line, then `vigil signal` — with no vigil on PATH", async () => {
    const w = await arm({ label: "nightly training" });
    const job = await sh(`${w.how_to_signal.env}; sh -c 'echo training; exit 0'; vigil signal --exit-code $?`, {
      PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
    });
    expect(job.exitCode, job.stderr).toBe(0);
    expect((await daemon.waitForState(w.sid, w.id, ["ready"])).lastEvent).toBe("ok: exit=0");
  });

  test("curl, as pasted, with the secret saved in a file first", async () => {
    const w = await arm();
    const secretFile = join(mkdtempSync(join(tmpdir(), "vigil-secret-")), "wp.secret");
    writeFileSync(secretFile, `${w.secret}\n`, { mode: 0o600 });
    expect((await sh(w.how_to_signal.curl.replaceAll("SECRET_FILE", secretFile))).stdout).toContain('"accepted":true');
    expect((await daemon.waitForState(w.sid, w.id, ["ready"])).lastEvent).toBe("ok: done");
  });

  test("the file drop, as pasted", async () => {
    const w = await arm();
    const job = await sh(`false; ${w.how_to_signal.shell}`);
    expect(job.exitCode, job.stderr).toBe(0);
    const ended = await daemon.waitForState(w.sid, w.id, ["ready"]);
    expect(ended.ending.reason).toBe("failed");
    expect(ended.lastEvent).toBe("fail: exit=1");
  });

  test("attach_to_pid, as pasted", async () => {
    const w = await arm();
    const job = execa("sleep", ["1"]);
    await sh(w.how_to_signal.attach_to_pid.replaceAll("PID", String(job.pid)));
    const ended = await daemon.waitForState(w.sid, w.id, ["ready"]);
    expect(ended.lastEvent).toBe(`ok: pid ${job.pid} exited`);
    await job;
  });

  test("no line holds the secret, and none shows it in any process's argv while it runs, under bash -c and sh -c", async () => {
    // A heartbeat deadline long enough that no gap between two lines stalls it, however busy the machine.
    const w = await arm({ max_signals: 24, heartbeat_timeout_seconds: 10 });
    const dir = mkdtempSync(join(tmpdir(), "vigil-argv-"));
    const secretFile = join(dir, "secret");
    writeFileSync(secretFile, `${w.secret}\n`, { mode: 0o600 });
    for (const [name, line] of Object.entries(w.how_to_signal)) expect(line, name).not.toContain(w.secret);
    // Every process's argv, as another local user reads it with ps, scanned for as long as the lines run.
    const leaks: string[] = [];
    let scanning = true;
    const scan = (async () => {
      while (scanning) {
        for (const pid of readdirSync("/proc")) {
          if (!/^\d+$/.test(pid)) continue;
          try {
            const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8");
            if (argv.includes(w.secret)) leaks.push(argv.replaceAll("\0", " "));
          } catch {
            // Gone already.
          }
        }
        // A pass every few milliseconds: each line's processes live far longer than that.
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
    })();
    for (const shell of ["bash", "sh"]) {
      const job = execa("sleep", ["1"]);
      const pid = String(job.pid);
      const lines = [
        w.how_to_signal.heartbeat.replaceAll("PID", pid),
        `${w.how_to_signal.env}; ${BIN} --home ${daemon.home} signal --message env`,
        w.how_to_signal.cli,
        `true; ${w.how_to_signal.shell}`,
        w.how_to_signal.curl.replaceAll("SECRET_FILE", secretFile),
        w.how_to_signal.attach_to_pid.replaceAll("PID", pid),
      ];
      for (const line of lines) {
        const run = await execa(shell, ["-c", line], { env: { VIGIL_HOME: daemon.home }, reject: false });
        expect(run.exitCode, `${shell} -c ${line}: ${run.stderr}`).toBe(0);
      }
      await job;
    }
    const view = await waitFor(async () => {
      const v = await wp(w);
      const ok = v.signals.filter((s: any) => s.status === "ok").length;
      return ok === 10 && v.signals.some((s: any) => s.status === "progress") ? v : null;
    });
    scanning = false;
    await scan;
    const messages: string[] = [...new Set<string>(view.signals.map((s: any) => s.message))];
    expect(messages.filter((m) => !/^pid \d+ exited$/.test(m)).sort()).toEqual(["alive", "done", "env", "exit=0"]);
    expect(messages.filter((m) => /^pid \d+ exited$/.test(m))).toHaveLength(2);
    expect(leaks).toEqual([]);
  });

  test("the alarm clock", async () => {
    const w = await arm({ label: "look again" });
    await sh(
      `(sleep 1; ${BIN} --home ${daemon.home} signal --id ${w.id} --secret ${w.secret} --message "an hour is up, look at the queue again") &`,
    );
    expect((await daemon.waitForState(w.sid, w.id, ["ready"])).lastEvent).toBe(
      "ok: an hour is up, look at the queue again",
    );
  });

  test("the monitor loop: max_signals keeps it open as a mailbox, waking on every report", async () => {
    const w = await arm({ label: "nightly", max_signals: 3 });
    const log = join(mkdtempSync(join(tmpdir(), "vigil-loop-")), "train.log");
    writeFileSync(log, "step 1\n");
    await sh(
      `i=0; while [ $i -lt 3 ]; do i=$((i+1)); echo "step $i" >> ${log}; ${BIN} --home ${daemon.home} signal --id ${w.id} --secret ${w.secret} --message "$(tail -1 ${log})"; sleep 0.3; done`,
    );
    const ended = await daemon.waitForState(w.sid, w.id, ["ready", "finished"]);
    expect(ended.ending.reason).toBe("met");
    const list = await wakes(w.sid);
    expect(list.map((k) => k.kind)).toEqual(["events", "events", "ending"]);
    expect(list.map((k) => k.payload.events.map((e: any) => e.text))).toEqual([
      ["ok: step 1"],
      ["ok: step 2"],
      ["ok: step 3"],
    ]);
  });

  test("the three-arm barrier, each arm signalling with --member", async () => {
    const w = await arm({ label: "T2 ladder", members: ["arm2", "arm6", "arm8"] });
    for (const arm of ["arm2", "arm6", "arm8"]) {
      const job = await sh(w.how_to_signal.cli.replace("MEMBER", arm).replace("$?", "0"));
      expect(job.exitCode, job.stderr).toBe(0);
    }
    const ended = await daemon.waitForState(w.sid, w.id, ["ready"], 20_000);
    expect(ended.ending.detail).toBe("3 of 3 members reported (quorum 3, fail fast): arm2 ok, arm6 ok, arm8 ok");
    expect(await wakes(w.sid)).toHaveLength(1);
  });
});
