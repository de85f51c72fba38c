/**
 * The reference tables (docs/reference.md) cannot drift from the code: the HTTP table lists exactly
 * the routes the server registers (shared/api-routes.ts), with the same method and auth, and the
 * environment table exactly the variables Vigil reads (base/config.ts EnvSchema).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { EnvSchema } from "../../native-host/src/base/config.js";
import { ROUTES } from "../../shared/api-routes.js";

const REFERENCE = readFileSync(join(import.meta.dirname, "..", "..", "docs", "reference.md"), "utf8");

/** The body of the section under `## TITLE`, up to the next `## `. */
function section(title: string): string {
  const start = REFERENCE.indexOf(`\n## ${title}\n`);
  expect(start, `docs/reference.md has a "## ${title}" section`).toBeGreaterThan(-1);
  const end = REFERENCE.indexOf("\n## ", start + 1);
  return REFERENCE.slice(start, end === -1 ? undefined : end);
}

test("the environment table lists every variable Vigil reads, and only those", () => {
  const rows = [...section("Environment variables").matchAll(/^\| `([A-Z_]+)` +\|/gm)].map(([, name]) => name);
  expect(rows.sort()).toEqual(Object.keys(EnvSchema.shape).sort());
});

test("the HTTP table lists every route, and only those, with its method and auth", () => {
  const rows = [...section("HTTP API").matchAll(/^\| `([A-Z]+)` +\| `([^`]+)` +\| ([^|]+?) +\|/gm)].map(
    ([, method, path, auth]) => `${method} ${path} ${auth === "token" ? "token" : "public"}`,
  );
  const routes = Object.values(ROUTES).map(
    (route) => `${route.method} ${route.path} ${"public" in route && route.public ? "public" : "token"}`,
  );
  expect(rows.sort()).toEqual(routes.sort());
});
