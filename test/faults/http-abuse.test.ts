/**
 * Clients that hold the HTTP API hostage or feed it bodies it cannot digest: slow or silent sockets
 * are answered 408 and closed at the header timeout, the connection cap keeps the daemon's sockets
 * bounded (and frees up once the holders time out), an aborted body is a 400 with no stack in the
 * log, and JSON nested thousands deep is a 400 naming the limit — the daemon keeps answering.
 * The limits are lowered through VIGIL_HTTP_* so the test takes milliseconds, not the 10 s default.
 */
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { TestDaemon, waitFor } from "../helpers/daemon.js";

let daemon: TestDaemon;
let port: number;

beforeAll(async () => {
  daemon = await TestDaemon.start({
    env: { VIGIL_HTTP_HEADERS_TIMEOUT_MS: "400", VIGIL_HTTP_MAX_CONNECTIONS: "8" },
  });
  port = Number(new URL(daemon.url).port);
});
afterAll(() => daemon.dispose());

/** A raw socket: what it was sent back, and a promise that settles when the daemon closes it. */
function socket(first?: string): { sock: Socket; received: () => string; closed: Promise<void> } {
  const sock = connect(port, "127.0.0.1");
  let data = "";
  sock.on("data", (chunk) => {
    data += chunk.toString();
  });
  sock.on("error", () => undefined);
  if (first !== undefined) sock.on("connect", () => sock.write(first));
  return { sock, received: () => data, closed: new Promise((resolve) => sock.on("close", () => resolve())) };
}

const healthy = async () => (await fetch(`${daemon.url}/healthz`)).status === 200;

test("a client that sends headers slowly, or nothing, is answered 408 and closed", async () => {
  const partial = socket(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
  const silent = socket();
  await Promise.all([partial.closed, silent.closed]);
  expect(partial.received()).toMatch(/^HTTP\/1\.1 408 /);
  expect(silent.received()).toMatch(/^HTTP\/1\.1 408 /);
  expect(await healthy()).toBe(true);
});

test("connections past the cap are closed on arrival; the held ones time out and the API answers again", async () => {
  const held = Array.from({ length: 8 }, () => socket());
  await Promise.all(held.map(({ sock }) => new Promise((resolve) => sock.once("connect", resolve))));
  const refused = socket(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
  await refused.closed;
  expect(refused.received()).toBe("");
  await Promise.all(held.map(({ closed }) => closed));
  expect(await waitFor(healthy, { what: "the API answering once the held sockets timed out" })).toBe(true);
});

test("a body aborted halfway is a 400 for nobody, with no stack trace in the log", async () => {
  for (let i = 0; i < 20; i++) {
    const aborted = socket();
    const head = `POST /webhook/signal HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"id":`;
    aborted.sock.once("connect", () => aborted.sock.write(head, () => aborted.sock.destroy()));
    await aborted.closed;
  }
  expect(await healthy()).toBe(true);
  const log = readFileSync(join(daemon.home, "vigil.log"), "utf8");
  expect(log).not.toMatch(/ERROR|failed: |\n\s+at /);
});

test("JSON nested thousands deep is a 400 naming the limit, on every JSON route", async () => {
  const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
  await daemon.api("POST", "/api/sessions", { id: "deep" });
  for (const [method, path, body] of [
    ["POST", "/webhook/signal", `{"id":"wp_0","secret":"x","data":${deep}}`],
    ["POST", "/api/sessions/deep/monitors", `{"source":{"kind":"tool","name":"http__get","args":${deep}}}`],
    ["POST", "/api/sessions/deep/monitors/events", `{"type":"x","payload":${deep}}`],
  ] as const) {
    const reply = await daemon.api(method, path, body);
    expect(reply.status, path).toBe(400);
    expect(reply.body.error.message).toBe("Expected JSON nested at most 64 levels deep, got deeper");
  }
  expect((await daemon.api("GET", "/api/sessions/deep/monitors")).body).toEqual([]);
});
