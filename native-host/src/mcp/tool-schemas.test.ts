/** The MCP-facing schemas stay in step with the API's (the fields) and with the views (the outputs). */
import { describe, expect, expectTypeOf, test } from "vitest";
import type { z } from "zod";
import { MonitorCreateSchema, WaitCreateSchema } from "../../../shared/schemas/inputs.js";
import type { Observation, Tab } from "../../../shared/schemas/native-messages.js";
import { BrowserObserveSchema, SourceSchema } from "../../../shared/schemas/sources.js";
import type { CheckEntry, MonitorEvent, WaitCreated, WaitpointView } from "../../../shared/schemas/views.js";
import {
  MCP_SOURCE_KINDS,
  McpBrowserObserveShape,
  McpMonitorCreateSchema,
  McpSourceSchema,
  McpWaitCreateSchema,
  OUTPUTS,
  type WaitpointOut,
} from "./tool-schemas.js";

const armable = SourceSchema.options.filter((option) => option.shape.kind.value !== "signal");

describe("inputs", () => {
  test("the one-object source has every field of every kind monitor__create arms, and no other", () => {
    expect([...MCP_SOURCE_KINDS]).toEqual(armable.map((option) => option.shape.kind.value));
    const fields = new Set(armable.flatMap((option) => Object.keys(option.shape)));
    expect(Object.keys(McpSourceSchema.shape).sort()).toEqual([...fields].sort());
  });

  test("monitor__create, wait_create and browser__observe take the API's fields", () => {
    expect(Object.keys(McpMonitorCreateSchema.shape).sort()).toEqual(Object.keys(MonitorCreateSchema.shape).sort());
    expect(Object.keys(McpWaitCreateSchema.shape).sort()).toEqual(Object.keys(WaitCreateSchema.shape).sort());
    expect(Object.keys(McpBrowserObserveShape).sort()).toEqual(Object.keys(BrowserObserveSchema.shape).sort());
  });

  test("what the API accepts, the MCP schema lets through (the API's schema then decides)", () => {
    const sources = [
      { kind: "command", command: "make", cwd: "/", condition: { path: "exitCode", operator: "equals", value: 0 } },
      { kind: "watch", command: "tail -f log" },
      {
        kind: "tool",
        name: "http__get",
        args: { url: "http://127.0.0.1/x" },
        condition: { all: [{ any: [{ path: "a", operator: "exists" }] }, { not: { operator: "changed" } }] },
        consecutive: 3,
      },
      {
        kind: "event",
        type: "deploy.done",
        match: { "run.id": 4 },
        lookbackSeconds: 60,
        fallback: {
          name: "file__stat",
          args: { path: "/tmp/x" },
          condition: { path: "exists", operator: "equals", value: true },
        },
      },
      { kind: "time", at: "2030-01-01T00:00:00Z" },
      { kind: "browser", tabId: 1, url: "https://x.test/", selector: "#a", condition: { operator: "exists" } },
    ];
    for (const source of sources) {
      const input = { name: "n", source, intervalSeconds: 30, timeoutSeconds: 600, continuation: "c" };
      expect(MonitorCreateSchema.safeParse(input).success, source.kind).toBe(true);
      expect(McpMonitorCreateSchema.safeParse(input).success, source.kind).toBe(true);
    }
    for (const input of [
      { label: "l", intent: "i", members: ["a", "b"], quorum: "all", fail_fast: false },
      { label: "l", intent: "i", quorum: 1, max_signals: 5, expires_in_hours: 1, heartbeat_timeout_seconds: 60 },
    ]) {
      expect(WaitCreateSchema.safeParse(input).success).toBe(true);
      expect(McpWaitCreateSchema.safeParse(input).success).toBe(true);
    }
  });
});

describe("outputs", () => {
  test("the output schemas list exactly the views' fields (a new view field needs its schema line)", () => {
    expectTypeOf<z.input<typeof WaitpointOut>>().toEqualTypeOf<WaitpointView>();
    expectTypeOf<z.input<typeof OUTPUTS.waitCreated>["waitpoint"]>().toEqualTypeOf<WaitCreated>();
    expectTypeOf<z.input<typeof OUTPUTS.events>["events"]>().toEqualTypeOf<MonitorEvent[]>();
    expectTypeOf<z.input<typeof OUTPUTS.checks>["checks"]>().toEqualTypeOf<CheckEntry[]>();
    expectTypeOf<z.input<typeof OUTPUTS.tabs>["tabs"]>().toEqualTypeOf<Tab[]>();
    expectTypeOf<z.input<typeof OUTPUTS.observation>["observation"]>().toEqualTypeOf<Observation>();
  });

  test("a result keeps the fields its schema lists and drops the rest", () => {
    const parsed = OUTPUTS.observation.parse({
      session: "s",
      observation: { text: "t", exists: true, url: "u", title: "x", extra: 1 },
    });
    expect(parsed).toEqual({ session: "s", observation: { text: "t", exists: true, url: "u", title: "x" } });
  });
});
