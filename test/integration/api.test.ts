import { chmodSync, statSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { TestDaemon } from "../helpers/daemon.js";

let daemon: TestDaemon;

beforeAll(async () => {
  daemon = await TestDaemon.start();
  await daemon.api("POST", "/api/sessions", { id: "api", label: "API tests" });
  await daemon.api("POST", "/api/sessions/api/monitors", {
    source: { kind: "command", command: "false" },
    intervalSeconds: 30,
    timeoutSeconds: 600,
  });
});
afterAll(() => daemon.dispose());

/** What is stored, to prove a refused request changed nothing. */
async function snapshot() {
  const monitors = (await daemon.api("GET", "/api/sessions/api/monitors")).body.map((m: any) => ({
    ...m,
    lastCheckAt: null,
    polls: null,
    nextCheckAt: null,
    lastObservation: null,
  }));
  return { sessions: (await daemon.api("GET", "/api/sessions")).body, monitors };
}

describe("the HTTP API", () => {
  test("on TCP only healthz and the signal route answer; the owner's socket serves the rest, no token needed", async () => {
    expect((await fetch(`${daemon.url}/healthz`)).status).toBe(200);
    const denied = await daemon.tcp("GET", "/api/sessions", undefined, { authorization: `Bearer ${daemon.token}` });
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toContain("$VIGIL_HOME/api.sock");
    expect((await daemon.api("GET", "/api/sessions")).status).toBe(200);
  });

  test("DNS rebinding and web pages are refused before anything else: a foreign Host, any Origin", async () => {
    const { port } = new URL(daemon.url);
    const ask = (headers: Record<string, string>, path = "/healthz") =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const req = request(
          {
            host: "127.0.0.1",
            port,
            path,
            method: "GET",
            headers: { authorization: `Bearer ${daemon.token}`, ...headers },
          },
          (res) => {
            let text = "";
            res.on("data", (chunk) => {
              text += chunk;
            });
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
          },
        );
        req.on("error", reject);
        req.end();
      });
    expect((await ask({})).status).toBe(200);
    expect((await ask({ host: `localhost:${port}` })).status).toBe(200);
    const rebound = await ask({ host: `attacker.example:${port}` });
    expect(rebound).toMatchObject({
      status: 421,
      body: { error: { code: "misdirected", message: expect.stringContaining('got "attacker.example:') } },
    });
    expect((await ask({ host: `attacker.example:${port}` }, "/api/status")).status).toBe(421);
    const page = await ask({ origin: "https://attacker.example" });
    expect(page).toMatchObject({
      status: 403,
      body: { error: { code: "forbidden", message: expect.stringContaining("web pages are refused") } },
    });
  });

  test("modes loosened while the daemon was down are put back at start", async () => {
    const own = await TestDaemon.start();
    try {
      await own.api("PUT", "/api/vault/DEPLOY_KEY", { value: "s3cret-value" });
      expect(await own.stop()).toBe(0);
      const spool = join(own.home, "tmp", "signals");
      for (const [path, mode] of [
        [join(own.home, "token"), 0o644],
        [join(own.home, "vault.json"), 0o644],
        [spool, 0o777],
        [own.home, 0o755],
      ] as const)
        chmodSync(path, mode);
      await own.spawn();
      const mode = (path: string) => statSync(path).mode & 0o777;
      expect(mode(join(own.home, "token"))).toBe(0o600);
      expect(mode(join(own.home, "vault.json"))).toBe(0o600);
      expect(mode(spool)).toBe(0o700);
      expect(mode(own.home)).toBe(0o700);
    } finally {
      await own.dispose();
    }
  });

  test("listens on 127.0.0.1 only and the token file is private", async () => {
    expect(new URL(daemon.url).hostname).toBe("127.0.0.1");
    const { statSync } = await import("node:fs");
    expect(statSync(`${daemon.home}/token`).mode & 0o777).toBe(0o600);
  });

  test("sessions: create (idempotent by id), list, view, delete", async () => {
    const created = await daemon.api("POST", "/api/sessions", { id: "tmp-1", label: "x" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: "tmp-1", label: "x", adapter: { kind: "inbox" } });
    expect((await daemon.api("POST", "/api/sessions", { id: "tmp-1" })).status).toBe(200);
    expect((await daemon.api("GET", "/api/sessions")).body.map((s: any) => s.id)).toContain("tmp-1");
    expect((await daemon.api("DELETE", "/api/sessions/tmp-1")).status).toBe(200);
    expect((await daemon.api("GET", "/api/sessions/tmp-1")).status).toBe(404);
  });

  test.each([
    ["malformed JSON", "/api/sessions/api/monitors", "{not json", 400, "Expected a JSON body, got malformed JSON"],
    ["a missing source", "/api/sessions/api/monitors", { name: "x" }, 400, "source: Invalid input"],
    ["an unknown source kind", "/api/sessions/api/monitors", { source: { kind: "telepathy" } }, 400, "source.kind"],
    [
      "an empty command",
      "/api/sessions/api/monitors",
      { source: { kind: "command", command: " " }, intervalSeconds: 5 },
      400,
      "Expected a non-empty command",
    ],
    [
      "a wrong type",
      "/api/sessions/api/monitors",
      { source: { kind: "command", command: "x" }, intervalSeconds: "5" },
      400,
      "intervalSeconds: Invalid input: expected number, received string",
    ],
    [
      "a missing until",
      "/api/sessions/api/monitors",
      { source: { kind: "command", command: "x" } },
      400,
      "intervalSeconds (until): Expected a poll interval",
    ],
    [
      "a timeout over 600",
      "/api/sessions/api/monitors",
      { source: { kind: "command", command: "x" }, intervalSeconds: 5, timeoutSeconds: 601 },
      400,
      "timeoutSeconds: Expected 60–600 seconds (1–59 use the default 300), got 601",
    ],
    [
      "an unknown field",
      "/api/sessions/api/monitors",
      { source: { kind: "command", command: "x", shell: "zsh" }, intervalSeconds: 5 },
      400,
      'Unrecognized key: "shell"',
    ],
    [
      "a bad condition",
      "/api/sessions/api/monitors",
      {
        source: { kind: "command", command: "x", condition: { path: "a", operator: "gt", value: "3" } },
        intervalSeconds: 5,
      },
      400,
      "Expected a number for gt",
    ],
    [
      "an unknown session",
      "/api/sessions/nope/monitors",
      { source: { kind: "command", command: "x" }, intervalSeconds: 5 },
      404,
      "Unknown session nope",
    ],
    [
      "a bad control action",
      "/api/sessions/api/monitors/mon-1/control",
      { action: "explode" },
      400,
      "action: Invalid option",
    ],
    [
      "an unknown monitor",
      "/api/sessions/api/monitors/mon-99/control",
      { action: "pause" },
      404,
      "Unknown monitor mon-99 in session api",
    ],
    ["a bad session id", "/api/sessions", { id: "../etc" }, 400, "id: Expected a session id"],
  ])("%s → %i with a clear message, nothing stored changes", async (_what, path, body, status, message) => {
    const before = await snapshot();
    const reply = await daemon.api("POST", path, body);
    expect(reply.status).toBe(status);
    expect(reply.body.error.message).toContain(message);
    expect(await snapshot()).toEqual(before);
  });

  test("an unknown route is 404 and a wrong method 405", async () => {
    expect((await daemon.api("GET", "/api/nothing")).status).toBe(404);
    expect((await daemon.api("PUT", "/api/sessions")).status).toBe(405);
  });

  test("a body over 1 MB is refused with 413", async () => {
    const reply = await daemon.api("POST", "/api/sessions", JSON.stringify({ label: "x".repeat(1_100_000) }));
    expect(reply.status).toBe(413);
  });

  test("a streamed body (no content-length) that runs past 1 MB is answered 413, not cut off", async () => {
    const { request } = await import("node:http");
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({
        socketPath: daemon.socket,
        path: "/api/sessions",
        method: "POST",
        headers: { "content-type": "application/json" },
      });
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      const chunk = "x".repeat(64 * 1024);
      for (let i = 0; i < 20; i++) req.write(chunk); // 1.3 MB, sent chunked
      req.end();
    });
    expect(status).toBe(413);
    // The daemon keeps answering on new connections.
    expect((await daemon.api("GET", "/api/sessions")).status).toBe(200);
  });

  test("monitor views carry the pinned fields", async () => {
    const view = (await daemon.api("GET", "/api/sessions/api/monitors/mon-1")).body;
    for (const key of [
      "id",
      "name",
      "kind",
      "state",
      "ending",
      "eventCount",
      "lastEvent",
      "lastObservation",
      "lastError",
      "nextCheckAt",
      "deadlineAt",
    ]) {
      expect(view).toHaveProperty(key);
    }
  });
});
