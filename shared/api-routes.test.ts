/** pathOf builds every API path: a value that would not stay its own segment never becomes a URL. */
import { expect, test } from "vitest";
import { pathOf, ROUTES } from "./api-routes.js";
import { MonitorRefSchema, SessionIdSchema, WaitpointIdSchema, WakeIdSchema } from "./schemas/ids.js";

test.each(["", ".", ".."])("pathOf refuses %j as a path value (it would name another route)", (value) => {
  expect(() => pathOf(ROUTES.cancelWaitpoint, { sid: "s", wid: value })).toThrow(
    `Expected :wid in /api/sessions/:sid/waitpoints/:wid to be a name, got ${JSON.stringify(value)}`,
  );
  expect(() => pathOf(ROUTES.deleteSession, { sid: value })).toThrow(/Expected :sid .* to be a name/);
});

test("pathOf keeps every other value one encoded segment", () => {
  expect(pathOf(ROUTES.cancelWaitpoint, { sid: "s", wid: "../x" })).toBe("/api/sessions/s/waitpoints/..%2Fx");
  expect(pathOf(ROUTES.cancelWaitpoint, { sid: "s", wid: "%2e%2e" })).toBe("/api/sessions/s/waitpoints/%252e%252e");
  expect(pathOf(ROUTES.cancelWaitpoint, { sid: "s", wid: "..." })).toBe("/api/sessions/s/waitpoints/...");
});

test.each([
  [
    SessionIdSchema,
    ["s-1a2b3c4d", "agent-7", "0198c9f2-7b1e-7c3a-9f00-4f2a1b3c4d5e", "a.b:c_d"],
    ["", ".", "..", ".x", "a/b", "a b", "x".repeat(129)],
  ],
  [
    MonitorRefSchema,
    ["mon-1", "mon-42", "wp_0123456789ab"],
    ["", "..", "mon-0", "mon-", "mon-1/..", "wp_0123456789AB", "wp_0123", "mon-1 "],
  ],
  [WaitpointIdSchema, ["wp_0123456789ab"], ["", ".", "..", "mon-1", "wp_0123456789abc", "wp_../../x"]],
  [WakeIdSchema, ["wake-1", "wake-123456"], ["", "..", "wake-", "wake-1/..", "1"]],
])("ids match their pattern and nothing else (%#)", (schema, good, bad) => {
  for (const id of good) expect(schema.safeParse(id).success, id).toBe(true);
  for (const id of bad) {
    const parsed = schema.safeParse(id);
    expect(parsed.success, id).toBe(false);
    expect(parsed.error?.issues[0]?.message).toMatch(/^Expected a .* id/);
  }
});
