/**
 * The side panel's data (#26) against the real daemon, on a realistic workload: four sessions,
 * 20 `http__get` monitors whose observations are 60 KB of JSON each (over 1 MB together), a monitor
 * in error, a stalled and a failed waitpoint, a wake whose delivery failed, a device in error, a
 * cancelled monitor. `/api/panel` still lists it all in a small reply; filters, counts and pages
 * agree; the Needs-you list orders what needs the person; Dismiss and Clear ended change the daemon.
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ATTENTION_REASONS, type PanelPage } from "../../shared/schemas/views.js";
import { TestDaemon, waitFor } from "../helpers/daemon.js";

let daemon: TestDaemon;
let server: Server;
let base = "";
const POLLS = 20;

/** About 60 KB of JSON, under the tool's 64 KB body cap, so it is parsed and stored as an object. */
const BIG = JSON.stringify({
  status: "running",
  jobs: Array.from({ length: 600 }, (_, i) => ({ id: i, name: `job-${i}`, note: "x".repeat(60) })),
});

const panel = async (query = ""): Promise<{ page: PanelPage; bytes: number }> => {
  const reply = await daemon.api("GET", `/api/panel${query}`);
  expect(reply.status, JSON.stringify(reply.body).slice(0, 300)).toBe(200);
  return { page: reply.body as PanelPage, bytes: Buffer.byteLength(JSON.stringify(reply.body)) };
};

const attentionOf = async () => (await panel()).page.attention;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/big.json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(BIG);
      return;
    }
    // The webhook adapter's endpoint: always fails, so the wake needs review (1 attempt allowed).
    req.resume();
    res.writeHead(500);
    res.end("hook down: upstream said no");
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  daemon = await TestDaemon.start({ env: { VIGIL_DELIVERY_MAX_ATTEMPTS: "1" } });

  for (const [id, label] of [
    ["alpha", "Alpha deploys"],
    ["beta", "Beta API"],
    ["gamma", "Gamma training"],
    ["delta", "Delta misc"],
  ]) {
    expect((await daemon.api("POST", "/api/sessions", { id, label })).status).toBe(201);
  }
  expect(
    (await daemon.api("PATCH", "/api/sessions/alpha", { adapter: { kind: "webhook", url: `${base}/hook` } })).status,
  ).toBe(200);
  // alpha: met at once; its wake's delivery fails for good.
  await daemon.api("POST", "/api/sessions/alpha/monitors", {
    name: "Deploy 42 done",
    source: { kind: "command", command: "true" },
    intervalSeconds: 5,
  });
  // beta: 20 polls of a 60 KB JSON API.
  for (let i = 1; i <= POLLS; i++) {
    const reply = await daemon.api("POST", "/api/sessions/beta/monitors", {
      name: `API poll ${i}`,
      source: {
        kind: "tool",
        name: "http__get",
        args: { url: `${base}/big.json` },
        condition: { any: [{ path: "body.status", operator: "equals", value: "done" }] },
      },
      intervalSeconds: 600,
      timeoutSeconds: 3600,
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  }
  // gamma: a poll whose checks fail, a waitpoint whose heartbeat stalls, one that fails on its stall.
  await daemon.api("POST", "/api/sessions/gamma/monitors", {
    name: "Metrics endpoint",
    source: {
      kind: "tool",
      name: "http__get",
      args: { url: "http://127.0.0.1:1/metrics" },
      condition: { any: [{ path: "status", operator: "equals", value: 200 }] },
    },
    intervalSeconds: 600,
    timeoutSeconds: 3600,
  });
  for (const [label, failFast] of [
    ["train-arm1", false],
    ["train-arm2", true],
  ] as const) {
    const reply = await daemon.api("POST", "/api/sessions/gamma/waitpoints", {
      label,
      intent: "compare the arms",
      heartbeat_timeout_seconds: 1,
      fail_fast: failFast,
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  }
  // delta: a device nobody can reach, a waitpoint for it, a monitor the person cancels.
  expect((await daemon.api("POST", "/api/devices", { name: "gpu1", ssh: "nobody@127.0.0.1", port: 1 })).status).toBe(
    201,
  );
  await daemon.api("POST", "/api/sessions/delta/waitpoints", { label: "gpu job", intent: "read", device: "gpu1" });
  await daemon.api("POST", "/api/sessions/delta/monitors", {
    name: "Old sleeper",
    source: { kind: "command", command: "sleep 100" },
    intervalSeconds: 60,
  });
  expect((await daemon.api("POST", "/api/sessions/delta/monitors/mon-1/control", { action: "cancel" })).status).toBe(
    200,
  );

  await waitFor(
    async () => {
      const monitors = (await daemon.api("GET", "/api/sessions/beta/monitors")).body as Array<{ lastCheckAt: unknown }>;
      return monitors.every((m) => m.lastCheckAt !== null);
    },
    { what: "every API poll checked once", timeoutMs: 30_000 },
  );
  await waitFor(
    async () => {
      const reasons = new Set((await attentionOf()).map((item) => item.reason));
      return ["delivery_failed", "monitor_error", "waitpoint_stalled", "waitpoint_failed"].every((r) =>
        reasons.has(r as never),
      );
    },
    { what: "the workload's attention entries", timeoutMs: 30_000 },
  );
}, 90_000);

afterAll(async () => {
  await daemon?.dispose();
  server?.close();
});

describe("GET /api/panel", () => {
  test("a workload over 1 MB of observations still lists, in a small reply with excerpts", async () => {
    const full = await daemon.api("GET", "/api/sessions/beta/monitors");
    expect(Buffer.byteLength(JSON.stringify(full.body))).toBeGreaterThan(1_000_000);
    const { page, bytes } = await panel("?limit=500");
    expect(page.items).toHaveLength(page.total);
    expect(page.total).toBe(POLLS + 6);
    expect(bytes).toBeLessThan(200_000);
    for (const item of page.items) {
      const observation = item.monitor.lastObservation;
      expect(observation === null || (typeof observation === "string" && observation.length <= 300)).toBe(true);
    }
    const poll = page.items.find((item) => item.monitor.name === "API poll 1");
    expect(String(poll?.monitor.lastObservation)).toMatch(/^\{"status":200,.*…$/);
  });

  test("counts per filter and session agree with the pages; each waitpoint once", async () => {
    const { page } = await panel();
    expect(page.counts).toEqual({
      all: page.total,
      active: page.counts.all - page.counts.ended,
      ended: expect.any(Number),
      needs: expect.any(Number),
    });
    const bySession = Object.fromEntries(page.sessions.map((s) => [s.id, s]));
    expect(bySession.beta).toMatchObject({ label: "Beta API", counts: { all: POLLS, active: POLLS, ended: 0 } });
    expect(bySession.delta?.counts).toMatchObject({ all: 2, ended: 1 });
    for (const filter of ["active", "ended", "needs"] as const) {
      const filtered = (await panel(`?filter=${filter}&limit=500`)).page;
      expect(filtered.total, filter).toBe(page.counts[filter]);
      expect(filtered.items, filter).toHaveLength(page.counts[filter]);
    }
    const needs = (await panel("?filter=needs")).page.items.map((item) => `${item.session.id}/${item.monitor.id}`);
    expect(needs).toEqual(expect.arrayContaining(["alpha/mon-1", "gamma/mon-1"]));
    const waitpoints = (await panel("?kind=waitpoint")).page.items;
    expect(waitpoints.map((item) => item.waitpoint?.label).sort()).toEqual(["gpu job", "train-arm1", "train-arm2"]);
    expect(new Set(waitpoints.map((item) => item.waitpoint?.id)).size).toBe(3);
  });

  test("session, kind, device and search filter; pages are disjoint and in order", async () => {
    const beta = (await panel("?session=beta&limit=7")).page;
    expect(beta.total).toBe(POLLS);
    expect(beta.counts.all).toBe(POLLS);
    const second = (await panel("?session=beta&limit=7&offset=7")).page;
    const names = [...beta.items, ...second.items].map((item) => item.monitor.name);
    expect(names).toEqual(Array.from({ length: 14 }, (_, i) => `API poll ${i + 1}`));
    // Pages across session boundaries: 7 at a time, together the whole list in the same order.
    const whole = (await panel("?limit=500")).page.items.map((i) => `${i.session.id}/${i.monitor.id}`);
    const paged: string[] = [];
    for (let offset = 0; offset < whole.length; offset += 7) {
      paged.push(
        ...(await panel(`?limit=7&offset=${offset}`)).page.items.map((i) => `${i.session.id}/${i.monitor.id}`),
      );
    }
    expect(paged).toEqual(whole);
    expect(whole.slice(0, 2)).toEqual(["alpha/mon-1", "beta/mon-1"]);
    expect((await panel(`?offset=${whole.length}`)).page.items).toEqual([]);
    expect((await panel("?q=API%20POLL%201")).page.items.map((i) => i.monitor.name)).toEqual([
      "API poll 1",
      ...Array.from({ length: 10 }, (_, i) => `API poll ${i + 10}`),
    ]);
    expect((await panel("?q=training")).page.total).toBe(3); // the session label
    // What a row shows is found (its name); its command, which no row shows, is not (#38 item 10).
    expect((await panel("?q=old%20sleep")).page.items.map((i) => i.monitor.name)).toEqual(["Old sleeper"]);
    expect((await panel("?q=sleep%20100")).page.items).toEqual([]);
    const onDevice = (await panel("?device=gpu1")).page.items;
    expect(onDevice.map((i) => i.waitpoint?.label)).toEqual(["gpu job"]);
    expect(["offline", "error"]).toContain(onDevice[0]?.waitpoint?.deviceState);
    for (const bad of ["?filter=late", "?kind=cron", "?session=../x", `?q=${"x".repeat(201)}`, "?limit=0"]) {
      const reply = await daemon.api("GET", `/api/panel${bad}`);
      expect(reply.status, bad).toBe(400);
      expect(reply.body.error.message, bad).toMatch(/Expected/);
    }
  });

  test("Needs you: the failed delivery, the erroring check, the stalled and failed waitpoints, most urgent first", async () => {
    const attention = await attentionOf();
    const ranks = attention.map((item) => item.rank);
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    for (const item of attention) expect(item.rank).toBe(ATTENTION_REASONS.indexOf(item.reason));
    expect(attention.find((item) => item.reason === "delivery_failed")).toMatchObject({
      sessionId: "alpha",
      monitorId: "mon-1",
      title: "Deploy 42 done",
      wakeId: expect.stringMatching(/^wake-\d+$/),
      detail: expect.stringContaining("500"),
      actions: ["retry", "dismiss", "open"],
    });
    expect(attention.find((item) => item.reason === "monitor_error")).toMatchObject({
      sessionId: "gamma",
      title: "Metrics endpoint",
      detail: expect.stringMatching(/127\.0\.0\.1:1|ECONNREFUSED|fetch failed/),
    });
    expect(attention.find((item) => item.reason === "waitpoint_stalled")).toMatchObject({
      title: "train-arm1",
      detail: expect.stringMatching(/^stalled · no heartbeat since armed/),
    });
    // Each leads with the human reason, labelled exactly (issue #38 item 2): arm2 ended on its stall.
    expect(attention.find((item) => item.reason === "waitpoint_failed")).toMatchObject({
      title: "train-arm2",
      label: "stalled",
      headline: expect.stringMatching(/^no heartbeat for \d+s$/),
      primary: "open",
    });
    expect(attention.find((item) => item.reason === "delivery_failed")).toMatchObject({
      label: "delivery failed",
      headline: expect.stringMatching(/^POST http:\/\/127\.0\.0\.1:\d+\/hook answered 500/),
      primary: "retry",
    });
    // The CLI calls the stalled waitpoint stalled too.
    const ls = await daemon.cli(["ls", "--session", "gamma"]);
    expect(ls.stdout).toMatch(/wp_\w+ stalled · no heartbeat since armed \S+ ago · waitpoint · train-arm1/);
  });
});

describe("actions", () => {
  test("Dismiss sets a failed wake aside: out of Needs you, never delivered, recorded; 409 after", async () => {
    const item = (await attentionOf()).find((entry) => entry.reason === "delivery_failed");
    const wid = item?.wakeId as string;
    const reply = await daemon.api("POST", `/api/sessions/alpha/wakes/${wid}/dismiss`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ id: wid, state: "cancelled", dismissedAt: expect.any(String) });
    expect((await attentionOf()).some((entry) => entry.wakeId === wid)).toBe(false);
    const monitor = (await daemon.api("GET", "/api/sessions/alpha/monitors/mon-1")).body;
    expect(monitor).toMatchObject({ state: "finished", delivery: { wakeId: wid, dismissedAt: expect.any(String) } });
    const events = (await daemon.api("GET", "/api/sessions/alpha/monitors/mon-1/events")).body as Array<{
      text: string;
    }>;
    expect(events.at(-1)?.text).toBe(`${wid} dismissed by the person: it will not be delivered`);
    const again = await daemon.api("POST", `/api/sessions/alpha/wakes/${wid}/dismiss`);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toBe(
      `Only a wake that needs review or whose delivery is being retried can be dismissed; ${wid} is already dismissed`,
    );
    expect((await daemon.api("POST", `/api/sessions/alpha/wakes/${wid}/retry`)).status).toBe(409);
    expect((await daemon.api("POST", "/api/sessions/alpha/wakes/wake-999999/dismiss")).status).toBe(404);
  });

  test("`vigil dismiss` refuses a wake that is only ready, saying so", async () => {
    const wakes = (await daemon.api("GET", "/api/sessions/gamma/wakes")).body as Array<{ id: string; state: string }>;
    const ready = wakes.find((wake) => wake.state === "ready");
    expect(ready).toBeDefined();
    const cli = await daemon.cli(["dismiss", ready?.id as string]);
    expect(cli.exitCode).not.toBe(0);
    expect(cli.stderr).toContain("is ready and not yet failed (nothing to set aside)");
  });

  test("Clear ended takes the cancelled monitor out of the list; its record stays", async () => {
    const reply = await daemon.api("POST", "/api/sessions/delta/monitors/clear-ended");
    expect(reply).toMatchObject({ status: 200, body: { cleared: ["mon-1"] } });
    const delta = (await panel("?session=delta")).page;
    expect(delta.items.map((item) => item.monitor.name)).toEqual(["gpu job"]);
    expect(delta.counts).toMatchObject({ all: 1, ended: 0 });
    expect((await daemon.api("GET", "/api/sessions/delta/monitors/mon-1")).body.state).toBe("cancelled");
    expect(String((await daemon.cli(["clear-ended", "--session", "delta"])).stdout).trim()).toBe("nothing to clear");
  });
});
