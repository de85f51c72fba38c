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
import { Store } from "../store/store.js";
import { createApiServer } from "./server.js";

const store = Store.open(":memory:");
const services = wireServices({ store, log: silentLogger });
services.delivery.stop();
const server = createApiServer({ services, token: "t".repeat(32) });
const url = await new Promise<string>((resolve) =>
  server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`)),
);
afterAll(() => {
  server.close();
  services.engine.stop();
  store.close();
});

test.each(Object.keys(ROUTES) as RouteName[])("the server answers %s", async (name) => {
  const spec = ROUTES[name];
  const path = pathOf(spec, { sid: "nope", mid: "m", wid: "w", key: "K" });
  const response = await fetch(`${url}${path}`, { method: spec.method });
  // Unauthenticated: a token route says 401; a public one answers on its own terms. Never 404/405.
  expect(response.status).not.toBe(405);
  if (!("public" in spec)) expect(response.status).toBe(401);
  else expect(response.status).not.toBe(404);
});

test("a path outside the table is 404, another method on a known path is 405", async () => {
  expect((await fetch(`${url}/api/nothing`)).status).toBe(404);
  expect((await fetch(`${url}/api/status`, { method: "DELETE" })).status).toBe(405);
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
