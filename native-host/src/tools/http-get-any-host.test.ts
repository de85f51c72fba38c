/**
 * `http__get` armed with `anyHost` (team mode): the check may run on a host that is not the
 * session's, so it must never read what only that host reaches (issue #37, finding 7). Played as
 * the attacker: a peer's monitor aimed at a loopback service, directly, by name and by redirect.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { afterEach, describe, expect, test } from "vitest";
import { networkAddress } from "../../../test/helpers/network-address.js";
import { rejectionOf } from "../../../test/helpers/rejection.js";
import { prepareMonitor } from "../engine/arming.js";
import { probeFor } from "../probes/registry.js";
import { httpGet } from "./http-get.js";
import type { ToolContext, ToolError } from "./tool.js";

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A server on `host` that answers `answer` and records each request's path. */
async function serve(host: string, answer: (path: string) => { status: number; location?: string }) {
  const got: Array<{ path: string; headers: IncomingHttpHeaders }> = [];
  const server = createServer((req, res) => {
    got.push({ path: req.url ?? "", headers: req.headers });
    const { status, location } = answer(req.url ?? "");
    res.writeHead(status, { "content-type": "application/json", ...(location ? { location } : {}) }).end('{"ok":1}');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as { port: number };
  return { origin: `http://${host.includes(":") ? `[${host}]` : host}:${port}`, port, got };
}

const anyHost = (): ToolContext => ({
  signal: new AbortController().signal,
  timeoutMs: 5000,
  secrets: new Map(),
  anyHost: true,
});

const failure = (run: Promise<unknown>) => rejectionOf<ToolError>(run);

const arm = (source: Record<string, unknown>) => prepareMonitor({ source: source as never }, () => true, Date.now());
const get = (url: string, extra: Record<string, unknown> = {}) => ({
  kind: "tool",
  name: "http__get",
  args: { url },
  condition: { path: "status", operator: "equals", value: 200 },
  ...extra,
});

/** An event wait whose fallback reads `url` with http__get. */
const eventFallingBackTo = (url: string, anyHost = false) => ({
  kind: "event",
  type: "deploy.done",
  fallback: { name: "http__get", args: { url }, condition: { operator: "exists" }, ...(anyHost ? { anyHost } : {}) },
});

describe("arming: http__get is host-bound unless anyHost, and anyHost never for a private URL", () => {
  test("without anyHost the check is the session's host's; with anyHost and a public URL, any host's", () => {
    const bound = arm(get("http://127.0.0.1:8080/ci"));
    expect(bound.probe.hostFree?.(bound.source as never)).toBe(false);
    const free = arm(get("https://ci.example.com/run/1", { anyHost: true }));
    expect(free.probe.hostFree?.(free.source as never)).toBe(true);
    const event = probeFor("event");
    expect(event.hostFree?.(arm(eventFallingBackTo("https://ci.example.com/x")).source as never)).toBe(false);
    expect(event.hostFree?.(arm(eventFallingBackTo("https://ci.example.com/x", true)).source as never)).toBe(true);
  });

  test.each([
    ["http://127.0.0.1:8080/ci", "127.0.0.1 is loopback"],
    ["http://localhost:3000/", "localhost is loopback"],
    ["http://[::1]:3000/", "[::1] is loopback"],
    ["http://169.254.169.254/latest/meta-data/", "169.254.169.254 is link-local"],
    ["http://10.0.0.5/", "10.0.0.5 is private"],
    ["http://192.168.1.1/", "192.168.1.1 is private"],
    ["http://0.0.0.0:80/", "0.0.0.0 is unspecified"],
  ])("anyHost with %s is refused: %s", (url, what) => {
    expect(() => arm(get(url, { anyHost: true }))).toThrow(
      `source.anyHost: Expected a public URL for a check any host may run, got ${url}: ${what}, which each host reads as its own (arm it without anyHost: the session's host reads it)`,
    );
  });

  test("an event whose fallback asks anyHost for a loopback URL is refused the same way", () => {
    expect(() => arm(eventFallingBackTo("http://localhost:9/", true))).toThrow(
      "source.fallback.anyHost: Expected a public URL for a check any host may run, got http://localhost:9/",
    );
  });

  test("anyHost for a tool that needs its host, or with a vault reference, is refused naming why", () => {
    expect(() =>
      arm({
        kind: "tool",
        name: "file__stat",
        args: { path: "/etc/hosts" },
        condition: { operator: "exists" },
        anyHost: true,
      }),
    ).toThrow(
      "source.anyHost: Expected a tool any host may run (http__get), got file__stat: it runs on the session's host",
    );
    expect(() =>
      arm({
        ...get("https://ci.example.com/"),
        args: { url: "https://ci.example.com/", headers: { authorization: "${secret:CI}" } },
        anyHost: true,
      }),
    ).toThrow("source.anyHost: Expected no vault reference in a check any host may run, got ${secret:CI}");
  });
});

describe("running: a check any host may run reads no private address on the host that runs it", () => {
  test("a loopback URL given past the arming is refused before anything is sent", async () => {
    const local = await serve("127.0.0.1", () => ({ status: 200 }));
    const error = await failure(httpGet.run({ url: `http://localhost:${local.port}/secret` }, anyHost()));
    expect(error.message).toBe(
      `GET http://localhost:${local.port}/secret failed: localhost:${local.port} is localhost (loopback) on this host: a check any host may run (anyHost) never reads a loopback, link-local or private address`,
    );
    expect(local.got).toEqual([]);
  });

  test("a public URL that redirects to loopback: the hop is refused and the loopback service gets nothing", async () => {
    const local = await serve("127.0.0.1", () => ({ status: 200 }));
    const outside = await serve(networkAddress(), () => ({ status: 302, location: `${local.origin}/secret` }));
    const error = await failure(httpGet.run({ url: `${outside.origin}/start` }, anyHost()));
    expect(error.message).toBe(
      `GET ${outside.origin}/start failed: 127.0.0.1:${local.port} is 127.0.0.1 (loopback) on this host: a check any host may run (anyHost) never reads a loopback, link-local or private address`,
    );
    expect(outside.got.map((r) => r.path)).toEqual(["/start"]);
    expect(local.got).toEqual([]);
  });

  test("a public URL is read; without anyHost (the session's host) loopback is read as before", async () => {
    const outside = await serve(networkAddress(), () => ({ status: 200 }));
    expect(await httpGet.run({ url: `${outside.origin}/x` }, anyHost())).toMatchObject({
      status: 200,
      body: { ok: 1 },
    });
    const local = await serve("127.0.0.1", () => ({ status: 200 }));
    const own = { ...anyHost(), anyHost: false };
    expect(await httpGet.run({ url: `${local.origin}/x` }, own)).toMatchObject({ status: 200 });
  });
});
