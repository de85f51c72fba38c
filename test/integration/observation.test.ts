import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { TestDaemon, waitFor } from "../helpers/daemon.js";
import { jsonServer } from "../helpers/json-server.js";

let daemon: TestDaemon;

beforeAll(async () => {
  daemon = await TestDaemon.start();
});
afterAll(() => daemon.dispose());

const session = () => daemon.newSession("obs");

const create = (sid: string, body: unknown) => daemon.api("POST", `/api/sessions/${sid}/monitors`, body);
const wakes = async (sid: string) => (await daemon.api("GET", `/api/sessions/${sid}/wakes`)).body as any[];

describe("tool monitors", () => {
  test("http__get on a local JSON endpoint: waits while running, wakes with the observation when done", async () => {
    const ci = await jsonServer({ id: 123, status: "running" });
    const sid = await session();
    const made = await create(sid, {
      name: "Wait for pipeline run 123",
      source: {
        kind: "tool",
        name: "http__get",
        args: { url: ci.url },
        condition: { path: "body.status", operator: "in", value: ["succeeded", "failed", "cancelled"] },
      },
      intervalSeconds: 10,
      timeoutSeconds: 120,
      continuation: "On success collect the artifacts.",
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    await waitFor(async () => (await daemon.monitor(sid, "mon-1")).lastObservation?.body?.status === "running");
    ci.set({ id: 123, status: "succeeded" });
    // Resume checks at once rather than waiting out the 10 s interval.
    await daemon.api("POST", `/api/sessions/${sid}/monitors/mon-1/control`, { action: "pause" });
    await daemon.api("POST", `/api/sessions/${sid}/monitors/mon-1/control`, { action: "resume" });
    const ended = await daemon.waitForState(sid, "mon-1", ["ready"]);
    expect(ended.ending.detail).toContain('body.status in ["succeeded","failed","cancelled"]');
    const [wake] = await wakes(sid);
    expect(wake.text).toContain('mon-1 "Wait for pipeline run 123" (tool monitor)');
    expect(wake.text).toContain('"status": "succeeded"');
    await ci.close();
  });

  test("file__stat, file__read and process__status observe; a check that fails is kept as the last error", async () => {
    const sid = await session();
    const dir = mkdtempSync(join(tmpdir(), "vigil-obs-"));
    writeFileSync(join(dir, "result.json"), JSON.stringify({ loss: 0.21 }));
    const gone = execa("true");
    await gone;
    const closed = await jsonServer({});
    await closed.close(); // a port nothing listens on any more
    await create(sid, {
      source: {
        kind: "tool",
        name: "file__stat",
        args: { path: join(dir, "result.json") },
        condition: { path: "exists", operator: "equals", value: true },
      },
    });
    await create(sid, {
      source: {
        kind: "tool",
        name: "file__read",
        args: { path: join(dir, "result.json") },
        condition: { path: "json.loss", operator: "lt", value: 0.25 },
      },
    });
    await create(sid, {
      source: {
        kind: "tool",
        name: "process__status",
        args: { pid: gone.pid },
        condition: { path: "alive", operator: "equals", value: false },
      },
    });
    await create(sid, {
      source: {
        kind: "tool",
        name: "http__get",
        args: { url: closed.url },
        condition: { path: "status", operator: "equals", value: 200 },
      },
    });
    for (const id of ["mon-1", "mon-2", "mon-3"])
      expect((await daemon.waitForState(sid, id, ["ready"])).ending.reason).toBe("met");
    const failing = await waitFor(async () => {
      const view = await daemon.monitor(sid, "mon-4");
      return view.lastError ? view : null;
    });
    expect(failing).toMatchObject({ state: "waiting", errorCount: 1 });
    expect(failing.lastError).toBe(`GET ${closed.url} failed: fetch failed (ECONNREFUSED)`);
  });

  test.each([
    [
      { kind: "tool", name: "file__write", args: { path: "/tmp/x" }, condition: { path: "", operator: "exists" } },
      "source.name: file__write is not a known tool; a monitor may only call read-only tools: http__get, file__stat, file__read, process__status",
    ],
    [
      { kind: "tool", name: "shell", args: {}, condition: { path: "", operator: "exists" } },
      "Expected a tool name container__action",
    ],
    [
      {
        kind: "tool",
        name: "http__get",
        args: { url: "file:///etc/passwd" },
        condition: { path: "", operator: "exists" },
      },
      "source.args: url: Expected an http(s) URL",
    ],
  ])("%j is refused at creation", async (source, message) => {
    const sid = await session();
    const reply = await create(sid, { source });
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toContain(message);
    expect((await daemon.api("GET", `/api/sessions/${sid}/monitors`)).body).toEqual([]);
  });
});

describe("bounds", () => {
  const tool = {
    kind: "tool",
    name: "file__stat",
    args: { path: "/nonexistent" },
    condition: { path: "exists", operator: "equals", value: true },
  };

  test.each([
    // This daemon's floor is lowered to 0.2 s (as for every integration test); the 10 s rule itself
    // is unit-tested in timing.test.ts.
    [{ intervalSeconds: 0.1 }, "intervalSeconds: Expected 0.2–3600, got 0.1"],
    [{ intervalSeconds: 3601 }, "intervalSeconds: Expected 0.2–3600, got 3601"],
    [{ timeoutSeconds: 29 }, "timeoutSeconds: Expected 30–604800 seconds (30 s – 7 days), got 29"],
    [{ timeoutSeconds: 604801 }, "timeoutSeconds: Expected 30–604800 seconds (30 s – 7 days), got 604801"],
  ])("%j is refused naming the bound", async (extra, message) => {
    const reply = await create(await session(), { source: tool, ...extra });
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toBe(message);
  });

  test("defaults are 30 s and 30 min; pause keeps the deadline", async () => {
    const sid = await session();
    const made = (await create(sid, { source: tool })).body;
    expect(made).toMatchObject({ intervalSeconds: 30, timeoutSeconds: 1800 });
    const paused = (await daemon.api("POST", `/api/sessions/${sid}/monitors/mon-1/control`, { action: "pause" })).body;
    expect(paused.deadlineAt).toBe(made.deadlineAt);
  });

  test("the 21st active monitor is refused with the limit named", async () => {
    const sid = await session();
    const at = new Date(Date.now() + 20 * 60_000).toISOString();
    for (let i = 0; i < 20; i++) expect((await create(sid, { source: { kind: "time", at } })).status).toBe(201);
    const refused = await create(sid, { source: { kind: "time", at } });
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toBe(
      "Limit reached: at most 20 active monitors armed per session (this session has 20); cancel one first",
    );
  });
});

describe("time monitors", () => {
  test("wake at the time; a time after the deadline is refused", async () => {
    const sid = await session();
    const at = new Date(Date.now() + 1500).toISOString();
    await create(sid, { name: "look again", source: { kind: "time", at } });
    const ended = await daemon.waitForState(sid, "mon-1", ["ready"]);
    expect(Date.parse(ended.ending.at)).toBeGreaterThanOrEqual(Date.parse(at));
    // It fired at its time: its first check is then, so never "already true when armed".
    expect(ended.ending.detail).toBe(`its time came (${at})`);
    const [wake] = (await daemon.api("GET", `/api/sessions/${sid}/wakes`)).body;
    expect(wake.text).toContain(`its time came (${at})`);
    expect(wake.text).not.toContain("already true");
    const late = await create(sid, {
      source: { kind: "time", at: new Date(Date.now() + 3_600_000).toISOString() },
      timeoutSeconds: 60,
    });
    expect(late.status).toBe(400);
    expect(late.body.error.message).toMatch(/^source.at: Expected a time before the monitor's deadline/);
    expect((await create(sid, { source: { kind: "time", at: "tomorrow" } })).body.error.message).toContain(
      "Expected a UTC ISO time",
    );
  });
});

describe("event monitors", () => {
  const post = (sid: string, type: string, payload: unknown) =>
    daemon.api("POST", `/api/sessions/${sid}/monitors/events`, { type, payload });

  test("only the owning session's event for the particular run, meeting the condition, wakes it", async () => {
    const sid = await session();
    const other = await session();
    await create(sid, {
      name: "CI run 123",
      source: {
        kind: "event",
        type: "ci.completed",
        match: { "run.id": 123 },
        condition: { path: "payload.conclusion", operator: "in", value: ["success", "failure"] },
      },
    });
    expect((await post(other, "ci.completed", { run: { id: 123 }, conclusion: "success" })).status).toBe(202);
    expect((await post(sid, "ci.completed", { run: { id: 124 }, conclusion: "success" })).body.ended).toEqual([]);
    expect((await post(sid, "ci.started", { run: { id: 123 } })).body.ended).toEqual([]);
    expect((await post(sid, "ci.completed", { run: { id: 123 }, conclusion: "pending" })).body.ended).toEqual([]);
    expect((await daemon.monitor(sid, "mon-1")).state).toBe("waiting");
    const hit = await post(sid, "ci.completed", { run: { id: 123 }, conclusion: "failure", url: "https://ci/123" });
    expect(hit).toMatchObject({ status: 202, body: { accepted: true, ended: ["mon-1"] } });
    const [wake] = await wakes(sid);
    expect(wake.text).toContain('"conclusion": "failure"');
    expect(await wakes(other)).toEqual([]);
    expect((await post(sid, "ci.completed", "not-an-object")).status).toBe(202);
    expect((await daemon.api("POST", `/api/sessions/${sid}/monitors/events`, { payload: {} })).status).toBe(400);
  });

  test("a fallback tool reconciles an event that never came", async () => {
    const sid = await session();
    const dir = mkdtempSync(join(tmpdir(), "vigil-fallback-"));
    writeFileSync(join(dir, "done"), "");
    await create(sid, {
      source: {
        kind: "event",
        type: "deploy.done",
        fallback: {
          name: "file__stat",
          args: { path: join(dir, "done") },
          condition: { path: "exists", operator: "equals", value: true },
        },
      },
    });
    expect((await daemon.waitForState(sid, "mon-1", ["ready"])).ending.reason).toBe("met");
  });

  test("an accepted event survives kill -9 right after its 202, and so does the ending it caused", async () => {
    const sid = await session();
    await create(sid, { source: { kind: "event", type: "build.done", match: { id: 7 } } });
    const [unmatched, matched] = [
      await post(sid, "nobody.listens", { x: 1 }),
      await post(sid, "build.done", { id: 7 }),
    ];
    expect([unmatched.status, matched.status]).toEqual([202, 202]);
    await daemon.kill9();
    const rows = await daemon.query("SELECT type, matched FROM inbound_events WHERE session_id = $1 ORDER BY id", [
      sid,
    ]);
    expect(rows).toEqual([
      { type: "nobody.listens", matched: "[]" },
      { type: "build.done", matched: '["mon-1"]' },
    ]);
    await daemon.spawn();
    expect((await daemon.monitor(sid, "mon-1")).ending.reason).toBe("met");
    expect(await wakes(sid)).toHaveLength(1);
  });
});
