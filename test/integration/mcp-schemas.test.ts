/**
 * The schemas the real `vigil mcp` advertises (issue #17), read with the official SDK client: every
 * input schema is one a generic client can drive, every tool declares an output schema, and every
 * tool's structured result validates against it (Ajv), with the same JSON as its text.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Ajv, ValidateFunction } from "ajv";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BIN, TestDaemon } from "../helpers/daemon.js";
import { jsonServer } from "../helpers/json-server.js";
import { NativePort } from "../helpers/native-port.js";
import { compile, DRAFT_07, makeAjv, violations } from "../mcp/schema-rules.js";

const SESSION = "mcp-schemas";
const PAGE = "http://127.0.0.1:9/ci/42";

let daemon: TestDaemon;
let port: NativePort;
let ci: Awaited<ReturnType<typeof jsonServer>>;
let client: Client;
let tools: Array<{ name: string; inputSchema: any; outputSchema?: any }>;
let ajv: Ajv;
const inputs = new Map<string, ValidateFunction>();
const outputs = new Map<string, ValidateFunction>();

beforeAll(async () => {
  daemon = await TestDaemon.start();
  ci = await jsonServer({ status: "running" });
  port = await NativePort.browserOn(daemon, PAGE);
  const env = { ...(process.env as Record<string, string>) };
  for (const name of ["CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID", "VIGIL_SESSION"]) delete env[name];
  client = new Client({ name: "schema-test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "--home", daemon.home, "mcp", "--session", SESSION],
      env,
      stderr: "pipe",
    }),
  );
  tools = (await client.listTools()).tools as typeof tools;
  ajv = makeAjv();
  for (const tool of tools) {
    inputs.set(tool.name, compile(ajv, tool.inputSchema));
    if (tool.outputSchema) outputs.set(tool.name, compile(ajv, tool.outputSchema));
  }
});

afterAll(async () => {
  await client?.close();
  await port?.close();
  await ci?.close();
  await daemon?.dispose();
});

describe("tools/list", () => {
  test("every tool's inputSchema compiles (draft-07, strict Ajv) and follows the generic-client rules", () => {
    expect(tools).toHaveLength(15);
    for (const tool of tools) {
      if (tool.inputSchema.$schema !== undefined) expect(tool.inputSchema.$schema).toBe(DRAFT_07);
      expect(() => compile(makeAjv(), tool.inputSchema)).not.toThrow();
      expect(violations(tool.inputSchema, { unions: "typed" }), tool.name).toEqual([]);
    }
    // The two that were bare unions: a source is one object with an enum kind; quorum is one node
    // typed integer or string (a number from 1, or the string "all").
    const create = tools.find((t) => t.name === "monitor__create")!.inputSchema;
    expect(create.properties.source).toMatchObject({
      type: "object",
      required: ["kind"],
      properties: { kind: { type: "string", enum: ["command", "watch", "tool", "event", "time", "browser"] } },
    });
    expect(create.properties.source.properties.condition.type).toBe("object");
    const quorum = tools.find((t) => t.name === "wait_create")!.inputSchema.properties.quorum;
    expect(quorum).toMatchObject({ type: ["integer", "string"], minimum: 1, pattern: "^all$" });
    expect(inputs.get("wait_create")!({ label: "l", intent: "i", quorum: "all" })).toBe(true);
    expect(inputs.get("wait_create")!({ label: "l", intent: "i", quorum: "most" })).toBe(false);
    expect(inputs.get("wait_create")!({ label: "l", intent: "i", quorum: 0 })).toBe(false);
  });

  test("every tool declares an outputSchema that compiles and describes its fields", () => {
    for (const tool of tools) {
      expect(tool.outputSchema, `${tool.name} has an outputSchema`).toBeDefined();
      expect(tool.outputSchema.$schema).toBe(DRAFT_07);
      expect(() => compile(makeAjv(), tool.outputSchema)).not.toThrow();
      expect(violations(tool.outputSchema, { unions: "allowed" }), tool.name).toEqual([]);
      expect(tool.outputSchema.required).toContain("session");
    }
  });
});

describe("tools/call", () => {
  const called = new Set<string>();

  /** Calls a tool whose arguments the advertised schema accepts; checks its structured result. */
  async function call(name: string, args: Record<string, unknown> = {}) {
    const accepts = inputs.get(name)!;
    expect(accepts(args), `${name} ${JSON.stringify(args)}: ${ajv.errorsText(accepts.errors)}`).toBe(true);
    const result = (await client.callTool({ name, arguments: args })) as any;
    expect(result.isError, `${name}: ${result.content?.[0]?.text}`).toBeFalsy();
    const valid = outputs.get(name)!;
    expect(valid(result.structuredContent), `${name}: ${ajv.errorsText(valid.errors)}`).toBe(true);
    expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
    expect(result.structuredContent.session).toBe(SESSION);
    called.add(name);
    return result.structuredContent;
  }

  async function refused(name: string, args: Record<string, unknown>) {
    const result = (await client.callTool({ name, arguments: args })) as any;
    expect(result.isError, `${name} ${JSON.stringify(args)} is refused`).toBe(true);
    return result.content[0].text as string;
  }

  test("each tool, called with arguments its schema advertises, answers structured content matching its outputSchema", async () => {
    const armed = await call("wait_for_command", { command: "echo ready", until: 0.2, description: "build" });
    expect(armed.monitor).toMatchObject({ id: "mon-1", kind: "command" });

    // One source of each kind, in the one-object shape.
    const at = new Date(Date.now() + 600_000).toISOString().replace(/\.\d+Z$/, "Z");
    const sources = [
      {
        kind: "command",
        command: "echo hi",
        cwd: "/",
        condition: { path: "stdout", operator: "contains", value: "never" },
        consecutive: 2,
      },
      { kind: "watch", command: "echo watched; sleep 60" },
      {
        kind: "tool",
        name: "http__get",
        args: { url: ci.url },
        condition: { any: [{ path: "body.status", operator: "equals", value: "done" }] },
      },
      {
        kind: "event",
        type: "deploy.done",
        match: { id: 9 },
        condition: { not: { path: "payload.ok", operator: "equals", value: false } },
        lookbackSeconds: 10,
        fallback: { name: "http__get", args: { url: ci.url }, condition: { path: "body.status", operator: "exists" } },
      },
      { kind: "time", at },
      {
        kind: "browser",
        tabId: 7,
        url: PAGE,
        selector: "#status",
        condition: { all: [{ path: "text", operator: "equals", value: "Done" }] },
      },
    ];
    const ids: Record<string, string> = {};
    for (const source of sources) {
      const created = await call("monitor__create", {
        name: `a ${source.kind} monitor`,
        source,
        ...(source.kind === "watch" ? {} : { intervalSeconds: 10 }),
        timeoutSeconds: source.kind === "command" ? 120 : 1800,
        continuation: "check it",
      });
      expect(created.monitor.kind).toBe(source.kind);
      ids[source.kind] = created.monitor.id;
    }

    expect((await call("monitor__list")).monitors.map((m: any) => m.kind)).toEqual([
      "command",
      ...sources.map((s) => s.kind),
    ]);
    expect((await call("monitor__pause", { id: ids.tool })).monitor.state).toBe("paused");
    expect((await call("monitor__resume", { id: ids.tool })).monitor.state).toBe("waiting");

    await daemon.waitForState(SESSION, "mon-1", ["ready", "finished"]);
    expect((await call("monitor__events", { id: "mon-1" })).events[0].text).toBe("ready");
    expect((await call("monitor__checks", { id: "mon-1" })).checks.map((c: any) => c.outcome)).toContain("met");

    const wp = await call("wait_create", {
      label: "training",
      intent: "compare the loss, then pick a run",
      members: ["arm1", "arm2"],
      quorum: 2,
      fail_fast: true,
      max_signals: 1,
      expires_in_hours: 2,
      heartbeat_timeout_seconds: 600,
    });
    expect(wp.waitpoint.how_to_signal.cli).toContain(wp.waitpoint.id);
    expect((await call("wait_check")).waitpoints).toHaveLength(1);
    expect((await call("wait_check", { id: wp.waitpoint.id })).waitpoints).toMatchObject({
      quorum: 2,
      members: ["arm1", "arm2"],
    });
    expect((await call("wait_cancel", { id: wp.waitpoint.id })).waitpoint.state).toBe("cancelled");

    expect((await call("device__list")).devices).toEqual([]);

    expect((await call("browser__tabs")).tabs).toEqual([
      { tabId: 7, url: PAGE, title: "CI", active: true, windowId: 1 },
    ]);
    expect((await call("browser__observe", { tabId: 7, url: PAGE, selector: "#status" })).observation).toEqual({
      text: "Running",
      exists: true,
      url: PAGE,
      title: "CI",
    });

    const taken = await call("inbox", { wait_seconds: 10 });
    expect(taken.wakes.some((w: any) => w.text.includes("ready"))).toBe(true);
    const all = await call("inbox", { all: true });
    expect(all.wakes).toContainEqual(expect.objectContaining({ state: "delivered", deliveredVia: "inbox claim" }));

    expect((await call("monitor__cancel", { id: ids.watch })).monitor.state).toBe("cancelled");
    expect([...called].sort()).toEqual(tools.map((t) => t.name).sort());
  });

  test("the API's strict schemas still decide: what the API refuses, the tools refuse, saying which field", async () => {
    // A property of another kind, an unknown operator, a bad time: each named.
    expect(
      await refused("monitor__create", { source: { kind: "time", at: "2030-01-01T00:00:00Z", command: "x" } }),
    ).toMatch(/source.*command/);
    expect(
      await refused("monitor__create", {
        source: { kind: "tool", name: "http__get", args: {}, condition: { all: [{ operator: "sometimes" }] } },
      }),
    ).toContain("source.condition");
    expect(await refused("monitor__create", { source: { kind: "time", at: "tomorrow" } })).toContain(
      "Expected a UTC ISO time",
    );
    // What generic clients used to send for a bare union: a string.
    expect(await refused("monitor__create", { source: '{"kind":"time"}' })).toContain("source");
    expect(await refused("wait_create", { label: "x", intent: "y", members: ["a", "b"], quorum: 3 })).toContain(
      "Expected a quorum of at most 2",
    );
    expect(await refused("wait_create", { label: "x", intent: "y", quorum: "most" })).toContain("quorum");
    // Existing clients keep working: quorum "all" with members.
    const all = (await client.callTool({
      name: "wait_create",
      arguments: { label: "barrier", intent: "wait for both", members: ["a", "b"], quorum: "all" },
    })) as any;
    expect(all.isError).toBeFalsy();
    expect(all.structuredContent.waitpoint.state).toBe("armed");
  });
});
