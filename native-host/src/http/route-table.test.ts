/**
 * The route table (shared/api-routes.ts) is the one list of HTTP routes: the server answers every
 * route in it and no other, and no client builds an API path by hand.
 * Design: docs/design.md §7.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { pathOf, ROUTES, type RouteName } from "../../../shared/api-routes.js";
import { silentLogger } from "../base/log.js";
import { wireServices } from "../daemon.js";
import { SqliteEngine } from "../store/engine.js";
import { Store } from "../store/store.js";
import { createApiServer } from "./server.js";

const store = new SqliteEngine(Store.open(":memory:"), { checkScope: true });
const services = await wireServices({ store, log: silentLogger });
await services.delivery.stop();
const TOKEN = "t".repeat(32);
const server = createApiServer({ services, token: TOKEN, tcpApi: true });
const url = await new Promise<string>((resolve) =>
  server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`)),
);
afterAll(async () => {
  server.close();
  await services.engine.stop();
  await store.close();
});

test.each(Object.keys(ROUTES) as RouteName[])("the server answers %s", async (name) => {
  const spec = ROUTES[name];
  const path = pathOf(spec, { sid: "nope", mid: "m", wid: "w", key: "K", name: "nope" });
  const response = await fetch(`${url}${path}`, { method: spec.method });
  // Unauthenticated: a token route says 401; a public one answers on its own terms. Never 404/405.
  expect(response.status).not.toBe(405);
  if (!("public" in spec)) expect(response.status).toBe(401);
  else expect(response.status).not.toBe(404);
});

test("a path outside the table is 404, another method on a known path is 405 with Allow", async () => {
  expect((await fetch(`${url}/api/nothing`)).status).toBe(404);
  const wrong = await fetch(`${url}/api/status`, { method: "DELETE" });
  expect(wrong.status).toBe(405);
  expect(wrong.headers.get("allow")).toBe("GET, HEAD");
  const sessions = await fetch(`${url}/api/sessions`, { method: "PUT" });
  expect(sessions.headers.get("allow")).toBe("GET, POST, HEAD");
  expect(await sessions.json()).toEqual({
    error: { code: "method_not_allowed", message: "Expected GET, POST, HEAD on /api/sessions, got PUT" },
  });
});

const auth = { authorization: `Bearer ${TOKEN}` };

/** Every route, asked wrongly three ways: no token, unknown ids, a body that is not what it takes. */
test.each(Object.keys(ROUTES) as RouteName[])(
  "every error answer of %s has the one shape {error: {code, message}}",
  async (name) => {
    const spec = ROUTES[name];
    const path = pathOf(spec, { sid: "nope", mid: "m", wid: "w", key: "bad key", name: "nope" });
    const answers = await Promise.all([
      fetch(`${url}${path}`, { method: spec.method }),
      fetch(`${url}${path}`, { method: spec.method, headers: auth }),
      fetch(`${url}${path}?offset=-1&wait=x`, {
        method: spec.method,
        headers: { ...auth, "content-type": "application/json" },
        ...(spec.method === "GET" || spec.method === "DELETE" ? {} : { body: "[1" }),
      }),
    ]);
    for (const answer of answers) {
      if (answer.ok) continue;
      const body = (await answer.json()) as Record<string, unknown>;
      expect(Object.keys(body), `${spec.method} ${path} → ${answer.status}`).toEqual(["error"]);
      expect(body.error).toEqual({ code: expect.stringMatching(/^[a-z_]+$/), message: expect.any(String) });
    }
  },
);

test.each((Object.keys(ROUTES) as RouteName[]).filter((name) => ROUTES[name].method === "GET"))(
  "HEAD %s answers as GET does, without a body",
  async (name) => {
    const path = pathOf(ROUTES[name], { sid: "nope", mid: "m", wid: "w", name: "nope" });
    const [get, head] = await Promise.all(
      ["GET", "HEAD"].map((method) => fetch(`${url}${path}`, { method, headers: auth })),
    );
    expect(head.status).toBe(get?.status);
    expect(head.headers.get("content-type")).toBe(get?.headers.get("content-type"));
    expect(await head?.text()).toBe("");
  },
);

test("the bearer scheme is accepted in any case; any other scheme is 401 with WWW-Authenticate", async () => {
  for (const scheme of ["Bearer", "bearer", "BEARER", "bEaReR"]) {
    expect((await fetch(`${url}/api/status`, { headers: { authorization: `${scheme} ${TOKEN}` } })).status).toBe(200);
  }
  const basic = await fetch(`${url}/api/status`, { headers: { authorization: `Basic ${TOKEN}` } });
  expect(basic.status).toBe(401);
  expect(basic.headers.get("www-authenticate")).toBe("Bearer");
});

test("pathOf fills and encodes parameters and appends the query", () => {
  expect(pathOf(ROUTES.getMonitor, { sid: "a b", mid: "mon-1" })).toBe("/api/sessions/a%20b/monitors/mon-1");
  expect(pathOf(ROUTES.claimWakes, { sid: "s" }, { wait: 30, via: "mcp", skip: undefined })).toBe(
    "/api/sessions/s/wakes/claim?wait=30&via=mcp",
  );
  expect(() => pathOf(ROUTES.getMonitor, { sid: "s" })).toThrow("Expected a value for :mid");
});

test("no client of the daemon builds an /api/ path by hand", () => {
  const root = join(import.meta.dirname, "..");
  const offenders: string[] = [];
  for (const folder of ["cli", "mcp", "native"]) {
    for (const file of readdirSync(join(root, folder))) {
      if (!file.endsWith(".ts") || file.endsWith(".test.ts")) continue;
      const text = readFileSync(join(root, folder, file), "utf8");
      if (/["'`]\/api\//.test(text)) offenders.push(`${folder}/${file}`);
    }
  }
  expect(offenders).toEqual([]);
});

test("TCP without tcpApi serves the public routes only: every other route is 403 naming the socket, token or not", async () => {
  const publicOnly = createApiServer({ services, token: TOKEN });
  const base = await new Promise<string>((resolve) =>
    publicOnly.listen(0, "127.0.0.1", () =>
      resolve(`http://127.0.0.1:${(publicOnly.address() as { port: number }).port}`),
    ),
  );
  try {
    for (const name of Object.keys(ROUTES) as RouteName[]) {
      const spec = ROUTES[name];
      const path = pathOf(spec, { sid: "nope", mid: "mon-1", wid: "wp_000000000000", key: "K", name: "nope" });
      const reply = await fetch(`${base}${path}`, { method: spec.method, headers: auth });
      if ("public" in spec) expect(reply.status, name).not.toBe(403);
      else {
        expect(reply.status, name).toBe(403);
        expect(((await reply.json()) as { error: { message: string } }).error.message).toContain("api.sock");
      }
    }
  } finally {
    publicOnly.close();
  }
});

test("every route that writes about a session `:sid` is its host's alone (sessionHost); reads stay open to every host", () => {
  const writes = Object.entries(ROUTES).filter(([, spec]) => spec.method !== "GET" && spec.path.includes(":sid"));
  expect(writes.length).toBeGreaterThan(10);
  for (const [name, spec] of writes) expect([name, "sessionHost" in spec]).toEqual([name, true]);
  for (const [name, spec] of Object.entries(ROUTES)) {
    if (spec.method === "GET") expect([name, "sessionHost" in spec]).toEqual([name, false]);
  }
});
