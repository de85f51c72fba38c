import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { FIXTURES, isAlive, TestDaemon, waitFor } from "../helpers/daemon.js";

let daemon: TestDaemon;
let work: string;
let n = 0;

beforeAll(async () => {
  daemon = await TestDaemon.start();
  work = mkdtempSync(join(tmpdir(), "vigil-work-"));
});
afterAll(() => daemon.dispose());

/** A fresh session per test, so the per-session limit of 4 never couples tests. */
async function session(): Promise<string> {
  const id = `cw-${++n}`;
  expect((await daemon.api("POST", "/api/sessions", { id })).status).toBe(201);
  return id;
}

async function wait(sid: string, command: string, extra: Record<string, unknown> = {}) {
  const reply = await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
    source: { kind: "command", command, cwd: work },
    intervalSeconds: 0.2,
    timeoutSeconds: 60,
    ...extra,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body;
}

const wakes = async (sid: string) => (await daemon.api("GET", `/api/sessions/${sid}/wakes`)).body as any[];

describe("command waits against a real daemon", () => {
  test("waits armed together spread their later checks over the interval, then keep it exactly", async () => {
    const sessions = await Promise.all(Array.from({ length: 10 }, () => session()));
    const armed = await Promise.all(
      sessions.flatMap((sid) => Array.from({ length: 4 }, () => wait(sid, "false", { intervalSeconds: 2 }))),
    );
    const list = async () =>
      (await Promise.all(sessions.map((sid) => daemon.api("GET", `/api/sessions/${sid}/monitors`)))).flatMap(
        (reply) => reply.body as any[],
      );
    const afterFirst = await waitFor(async () => {
      const all = await list();
      return all.every((m) => m.polls >= 1) ? all : null;
    });
    expect(afterFirst).toHaveLength(armed.length);
    // How much later than a plain cadence (arming + 2 s a check) each next check is due (on a busy
    // machine a monitor may have had its second check before the list was read).
    const phases = afterFirst.map((m) => Date.parse(m.nextCheckAt) - Date.parse(m.createdAt) - 2000 * m.polls);
    for (const phase of phases) expect(phase).toBeGreaterThanOrEqual(0);
    expect(Math.max(...phases)).toBeGreaterThan(500);
    expect(phases.filter((phase) => phase > 50).length).toBeGreaterThan(armed.length / 2);
    // From the second check on, exactly every interval.
    const [one] = afterFirst;
    const afterSecond = await waitFor(async () => {
      const { body } = await daemon.api("GET", `/api/sessions/${one.sessionId}/monitors/${one.id}`);
      return body.polls === one.polls + 1 ? body : null;
    });
    expect(Date.parse(afterSecond.nextCheckAt) - Date.parse(one.nextCheckAt)).toBe(2000);
    for (const m of afterFirst) {
      await daemon.api("POST", `/api/sessions/${m.sessionId}/monitors/${m.id}/control`, { action: "cancel" });
    }
  });

  test("a wait is met by a file appearing, and its wake carries what the command printed", async () => {
    const sid = await session();
    const flag = join(work, "ready.flag");
    const view = await wait(sid, `cat ${flag} 2>/dev/null && echo marker-found`, {
      name: "Wait for the readiness marker",
      continuation: "Deploy once it is there",
    });
    expect(view).toMatchObject({
      id: "mon-1",
      state: "waiting",
      kind: "command",
      intervalSeconds: 0.2,
      timeoutSeconds: 60,
    });
    await waitFor(async () => (await daemon.monitor(sid, "mon-1")).polls >= 2, { what: "two checks" });
    expect(await wakes(sid)).toEqual([]);
    writeFileSync(flag, "build 42 ok\n");
    const ended = await daemon.waitForState(sid, "mon-1", ["ready"]);
    expect(ended.ending).toMatchObject({ reason: "met" });
    expect(ended.eventCount).toBe(1);
    expect(ended.lastEvent).toBe("build 42 ok\nmarker-found");
    const [wake, ...rest] = await wakes(sid);
    expect(rest).toEqual([]);
    expect(wake).toMatchObject({ state: "ready", monitors: ["mon-1"], kind: "ending" });
    expect(wake.text).toContain('mon-1 "Wait for the readiness marker" (command wait)');
    expect(wake.text).toContain("Ended (met)");
    expect(wake.text).toContain("build 42 ok\nmarker-found");
    expect(wake.text).toContain("Your note from when you armed it: Deploy once it is there");
    expect(wake.payload).toMatchObject({
      reason: "met",
      monitor: { id: "mon-1" },
      events: [{ seq: 1 }],
      omittedEvents: 0,
    });
  });

  test("a folder that does not exist is refused at arming, naming it, and nothing is stored", async () => {
    const sid = await session();
    for (const kind of ["command", "watch"]) {
      const reply = await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
        source: { kind, command: "true", cwd: join(work, "no-such-folder") },
        ...(kind === "command" ? { intervalSeconds: 5 } : {}),
      });
      expect(reply.status).toBe(400);
      expect(reply.body.error.message).toBe(
        `source.cwd: Expected an existing folder, got ${join(work, "no-such-folder")} (no such folder)`,
      );
    }
    expect((await daemon.api("GET", `/api/sessions/${sid}/monitors`)).body).toEqual([]);
  });

  test("exit 127 on the first poll ends the wait at once with an error", async () => {
    const sid = await session();
    await wait(sid, "definitely-not-a-command-vigil");
    const ended = await daemon.waitForState(sid, "mon-1", ["ready"]);
    expect(ended.ending.reason).toBe("error");
    expect(ended.ending.detail).toMatch(/first check could not run \(exit 127/);
    expect((await wakes(sid))[0].text).toContain("its check could not run");
  });

  test("after the first poll, four unrunnable checks are tolerated and the fifth ends it", async () => {
    const sid = await session();
    const dir = mkdtempSync(join(tmpdir(), "vigil-count-"));
    await wait(sid, `sh ${FIXTURES}/count-then.sh ${dir} "1 127"`);
    const ended = await daemon.waitForState(sid, "mon-1", ["ready"]);
    expect(ended.ending.reason).toBe("error");
    expect(ended.ending.detail).toMatch(/could not run 5 times in a row/);
    expect(readFileSync(join(dir, "count"), "utf8").trim()).toBe("6");
  });

  test("a check over its time limit is killed with its whole process group and counts as an ordinary failure", async () => {
    const sid = await session();
    const dir = mkdtempSync(join(tmpdir(), "vigil-kill-"));
    await wait(sid, `sh ${FIXTURES}/sleep-with-child.sh ${dir}`, { intervalSeconds: 1 });
    const view = await waitFor(
      async () => {
        const v = await daemon.monitor(sid, "mon-1");
        return v.lastObservation?.timedOut ? v : null;
      },
      { what: "a timed-out check" },
    );
    expect(view.state).toBe("waiting");
    expect(view.lastObservation.output).toContain("[check ran over 1s and was killed]");
    await daemon.api("POST", `/api/sessions/${sid}/monitors/mon-1/control`, { action: "cancel" });
    const pids = ["parent.pid", "child.pid"].map((f) => Number(readFileSync(join(dir, f), "utf8")));
    await waitFor(() => pids.every((pid) => !isAlive(pid)), { what: `pids ${pids} gone` });
  });

  test("predicates are conditions over the observation: contains and a JSON number bound", async () => {
    const sid = await session();
    const file = join(work, `status-${sid}.json`);
    writeFileSync(file, JSON.stringify({ progress: 10, state: "running" }));
    await wait(sid, `cat ${file}`, {
      source: {
        kind: "command",
        command: `cat ${file}`,
        cwd: work,
        condition: { path: "json.progress", operator: "gte", value: 100 },
      },
    });
    await wait(sid, `cat ${file}`, {
      source: {
        kind: "command",
        command: `cat ${file}`,
        cwd: work,
        condition: { path: "output", operator: "contains", value: "done" },
      },
    });
    await waitFor(async () => (await daemon.monitor(sid, "mon-2")).polls >= 2, { what: "checks" });
    writeFileSync(file, JSON.stringify({ progress: 100, state: "done" }));
    expect((await daemon.waitForState(sid, "mon-1", ["ready"])).ending.detail).toContain("json.progress gte 100");
    expect((await daemon.waitForState(sid, "mon-2", ["ready"])).ending.detail).toContain('output contains "done"');
  });

  test("on_change stores a digest, never the output, and fires when the output changes", async () => {
    const sid = await session();
    const file = join(work, `changing-${sid}.txt`);
    writeFileSync(file, "v1 secret-ish output");
    await wait(sid, `cat ${file}`, {
      source: {
        kind: "command",
        command: `cat ${file}`,
        cwd: work,
        condition: { path: "output", operator: "changed" },
      },
    });
    await waitFor(async () => (await daemon.monitor(sid, "mon-1")).polls >= 3, { what: "checks" });
    expect((await daemon.monitor(sid, "mon-1")).state).toBe("waiting");
    writeFileSync(file, "v2");
    const ended = await daemon.waitForState(sid, "mon-1", ["ready"]);
    expect(ended.lastEvent).toBe("v2");
  });

  test("pause stops checks but not the deadline; resume checks again; cancel wakes nobody", async () => {
    const sid = await session();
    const created = await wait(sid, "false");
    const control = (action: string) => daemon.api("POST", `/api/sessions/${sid}/monitors/mon-1/control`, { action });
    const paused = (await control("pause")).body;
    expect(paused).toMatchObject({ state: "paused", nextCheckAt: null, deadlineAt: created.deadlineAt });
    const polls = paused.polls;
    expect((await control("pause")).status).toBe(409);
    const resumed = (await control("resume")).body;
    expect(resumed.state).toBe("waiting");
    await waitFor(async () => (await daemon.monitor(sid, "mon-1")).polls > polls, { what: "a check after resume" });
    const cancelled = (await control("cancel")).body;
    expect(cancelled).toMatchObject({ state: "cancelled", ending: { reason: "stopped" } });
    expect(await wakes(sid)).toEqual([]);
    const again = await control("resume");
    expect(again.status).toBe(409);
    expect(again.body.error.message).toBe("Cannot resume a monitor that is cancelled");
  });

  test("a slow check never delays another monitor's checks", async () => {
    const sid = await session();
    await wait(sid, "sleep 60", { intervalSeconds: 30 }); // its first check runs until its 30 s limit
    await wait(sid, "false");
    const fast = await waitFor(async () => {
      const view = await daemon.monitor(sid, "mon-2");
      return view.polls >= 5 ? view : null;
    });
    const slow = await daemon.monitor(sid, "mon-1");
    expect(slow.polls).toBe(0); // still inside its first check
    expect(fast.polls).toBeGreaterThanOrEqual(5);
    await daemon.api("DELETE", `/api/sessions/${sid}`);
  });

  test("at most 4 command waits and watches per session; the 5th is refused naming the limit", async () => {
    const sid = await session();
    for (let i = 0; i < 3; i++) await wait(sid, "false");
    await daemon.api("POST", `/api/sessions/${sid}/monitors`, { source: { kind: "watch", command: "sleep 60" } });
    const fifth = await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
      source: { kind: "command", command: "false" },
      intervalSeconds: 5,
    });
    expect(fifth.status).toBe(429);
    expect(fifth.body.error.message).toMatch(/at most 4 command waits and watches armed per session/);
    expect((await daemon.api("GET", `/api/sessions/${sid}/monitors`)).body).toHaveLength(4);
    await daemon.api("POST", `/api/sessions/${sid}/monitors/mon-1/control`, { action: "cancel" });
    const retry = await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
      source: { kind: "command", command: "false" },
      intervalSeconds: 5,
    });
    expect(retry.status).toBe(201);
    expect(retry.body.id).toBe("mon-5");
    await daemon.api("DELETE", `/api/sessions/${sid}`);
  });
});

describe("overload: more checks due than can run at once", () => {
  test("status, `vigil status` and the panel route say so; waiting checks start earliest due first, and the late ones are named", async () => {
    const own = await TestDaemon.start();
    try {
      // 36 checks that each hold a slot (30 s, the longest a check may run): 32 run (the
      // concurrency), 4 wait for a slot.
      const sessions: string[] = [];
      for (let s = 0; s < 9; s++) {
        const sid = `busy-${s}`;
        expect((await own.api("POST", "/api/sessions", { id: sid })).status).toBe(201);
        sessions.push(sid);
        for (let i = 0; i < 4; i++) {
          const reply = await own.api("POST", `/api/sessions/${sid}/monitors`, {
            source: { kind: "command", command: "sleep 60", cwd: work },
            intervalSeconds: 30,
            timeoutSeconds: 300,
          });
          expect(reply.status, JSON.stringify(reply.body)).toBe(201);
        }
      }
      const armedAt = Date.now();
      const loaded = await waitFor(
        async () => {
          const { checks } = (await own.api("GET", "/api/status")).body;
          return checks.running === 32 && checks.waitingForSlot === 4 ? checks : null;
        },
        { what: "32 checks running and 4 waiting for a slot" },
      );
      expect(loaded).toMatchObject({ overloaded: true, concurrency: 32 });
      const cli = await own.cli(["status"]);
      expect(cli.stdout).toContain("checks: 32 of 32 running");
      expect(cli.stdout).toContain("OVERLOADED: Checks are running late — 4 due checks waiting for a free slot");
      expect((await own.api("GET", "/api/panel")).body.checks).toMatchObject({ overloaded: true, waitingForSlot: 4 });

      // The 4 that waited are due since they were armed; once that is over a second ago, freeing
      // slots lets them start — late, and named as such. The running ones were picked first.
      await waitFor(async () => (Date.now() - armedAt > 1500 ? true : null), { what: "1.5 s since arming" });
      await own.api("DELETE", `/api/sessions/${sessions[0]}`);
      const late = await waitFor(
        async () => {
          const { checks } = (await own.api("GET", "/api/status")).body;
          return checks.waitingForSlot === 0 && checks.late.length === 4 ? checks.late : null;
        },
        { what: "the 4 waiting checks started, late" },
      );
      for (const entry of late) {
        expect(entry.lateMs).toBeGreaterThan(1000);
        expect(entry.sessionId).not.toBe(sessions[0]);
      }
      // The last four armed were the ones left waiting (earliest due first).
      expect(late.map((entry: any) => `${entry.sessionId}/${entry.monitorId}`).sort()).toEqual(
        ["mon-1", "mon-2", "mon-3", "mon-4"].map((id) => `busy-8/${id}`),
      );
      // Named as the person knows them (their names), not by internal ids.
      const after = await own.cli(["status"]);
      expect(after.stdout).toMatch(/started over 1 s late in the last minute: sleep 60 \d+\.\d s/);
      expect(after.stdout).not.toContain("busy-8/mon-");
      const overload = (await own.api("GET", "/api/panel")).body.attention.find((a: any) => a.reason === "overload");
      expect(overload?.detail).toMatch(/started over 1 s late in the last minute: sleep 60 \d+\.\d s/);

      // Once the late monitors are gone (their session deleted), nothing names them any more.
      await own.api("DELETE", "/api/sessions/busy-8");
      const { checks, attention } = (await own.api("GET", "/api/panel")).body;
      expect(checks.late).toEqual([]);
      expect(attention.some((a: any) => a.reason === "overload")).toBe(false);
      expect((await own.api("GET", "/api/status")).body.checks.late).toEqual([]);
    } finally {
      await own.dispose();
    }
  });
});
