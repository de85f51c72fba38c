/** The real `vigil mcp`, driven by the official SDK client over stdio. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BIN, isAlive, TestDaemon, waitFor } from "../helpers/daemon.js";
import { jsonServer } from "../helpers/json-server.js";

interface Pushed {
  content: string;
  meta: Record<string, string>;
}

async function connect(
  home: string,
  args: string[] = [],
  cwd?: string,
  options: { channels?: boolean; env?: Record<string, string> } = {},
) {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    VIGIL_INTERVAL_FLOOR_SECONDS: "0.2",
    ...options.env,
  };
  for (const name of ["CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID", "VIGIL_SESSION"]) {
    if (!options.env?.[name]) delete env[name];
  }
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "--home", home, "mcp", ...args],
    env,
    stderr: "pipe",
    cwd,
  });
  // A client that reads pushed wakes says so, as Claude Code's channels do.
  const client = new Client(
    { name: "test-agent", version: "1.0.0" },
    options.channels ? { capabilities: { experimental: { "claude/channel": {} } } } : {},
  );
  const pushed: Pushed[] = [];
  client.fallbackNotificationHandler = async (notification) => {
    if (notification.method === "notifications/claude/channel") pushed.push(notification.params as unknown as Pushed);
  };
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = (await client.callTool({ name, arguments: args })) as {
      content: Array<{ text: string }>;
      isError?: boolean;
    };
    const text = result.content[0]?.text ?? "";
    return { isError: result.isError === true, text, json: result.isError ? undefined : JSON.parse(text) };
  };
  return { client, call, pushed };
}

describe("vigil mcp, with no daemon running", () => {
  let home: string;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), "vigil-mcp-"));
  });
  afterAll(() => {
    try {
      const { pid } = JSON.parse(readFileSync(join(home, "daemon.json"), "utf8"));
      process.kill(pid, "SIGTERM");
    } catch {
      // no daemon left
    }
    rmSync(home, { recursive: true, force: true });
  });

  test("starts the daemon, creates a session, and an agent arms every kind with MCP tools alone and receives each wake", async () => {
    const work = mkdtempSync(join(tmpdir(), "vigil-mcp-work-"));
    const { client, call, pushed } = await connect(home, [], work, { channels: true });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        "browser__observe",
        "browser__tabs",
        "device__list",
        "inbox",
        "monitor__cancel",
        "monitor__checks",
        "monitor__create",
        "monitor__events",
        "monitor__list",
        "monitor__pause",
        "monitor__resume",
        "wait_cancel",
        "wait_check",
        "wait_create",
        "wait_for_command",
      ].sort(),
    );
    expect(tools.find((t) => t.name === "wait_create")?.description).toContain("end your turn");
    const daemonPid = JSON.parse(readFileSync(join(home, "daemon.json"), "utf8")).pid;
    expect(isAlive(daemonPid)).toBe(true);

    // A command wait, in the agent's working folder.
    const armed = await call("wait_for_command", {
      command: "test -f built.flag && echo build ok",
      until: 0.2,
      description: "build",
    });
    const session = armed.json.session as string;
    expect(armed.json.monitor).toMatchObject({ id: "mon-1", state: "waiting" });
    expect(armed.json.next).toContain("end your turn");

    // A tool monitor on a local JSON endpoint.
    const ci = await jsonServer({ status: "running" });
    const tool = await call("monitor__create", {
      name: "CI run",
      source: {
        kind: "tool",
        name: "http__get",
        args: { url: ci.url },
        condition: { path: "body.status", operator: "equals", value: "done" },
      },
      intervalSeconds: 10,
    });
    expect(tool.json.monitor.id).toBe("mon-2");

    // An event monitor, and a waitpoint.
    expect(
      (await call("monitor__create", { source: { kind: "event", type: "deploy.done", match: { id: 9 } } })).json
        .session,
    ).toBe(session);
    const wp = (await call("wait_create", { label: "training", intent: "compare the loss" })).json.waitpoint;
    expect(wp.how_to_signal.cli).toContain(`signal --id ${wp.id}`);

    // The outside world happens; each ending is pushed into the live session.
    writeFileSync(join(work, "built.flag"), "");
    ci.set({ status: "done" });
    await call("monitor__pause", { id: "mon-2" });
    await call("monitor__resume", { id: "mon-2" });
    const daemon = new TestDaemon(home, {});
    daemon.url = JSON.parse(readFileSync(join(home, "daemon.json"), "utf8")).url;
    daemon.token = readFileSync(join(home, "token"), "utf8").trim();
    await daemon.api("POST", `/api/sessions/${session}/monitors/events`, { type: "deploy.done", payload: { id: 9 } });
    await fetch(`${daemon.url}/webhook/signal`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: wp.id, secret: wp.secret, message: "loss 0.2" }),
    });

    await waitFor(() => pushed.length >= 4, { what: "four pushed wakes" });
    const byMonitor = Object.fromEntries(pushed.map((p) => [p.meta.monitor, p]));
    expect(Object.keys(byMonitor).sort()).toEqual(["mon-1", "mon-2", "mon-3", wp.id].sort());
    expect(byMonitor["mon-1"]?.content).toContain("build ok");
    expect(byMonitor["mon-2"]?.content).toContain('mon-2 "CI run" (tool monitor)');
    expect(byMonitor[wp.id]?.content).toContain("loss 0.2");
    expect(byMonitor["mon-1"]?.meta.session).toBe(session);

    // Pushed wakes stay readable, recorded as unacknowledged pushes.
    const all = (await call("inbox", { all: true })).json.wakes as Array<{ deliveredVia: string }>;
    expect(all).toHaveLength(4);
    expect(new Set(all.map((w) => w.deliveredVia))).toEqual(new Set(["mcp push (unacknowledged)"]));
    expect((await call("monitor__list")).json.monitors.map((m: any) => m.state)).toEqual([
      "finished",
      "finished",
      "finished",
      "finished",
    ]);
    await ci.close();
    await client.close();
  });
});

describe("vigil mcp --session, against a running daemon", () => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await TestDaemon.start();
  });
  afterAll(() => daemon.dispose());

  test("invalid arguments are tool errors with the zod message; an inbox session pulls with the inbox tool", async () => {
    const { client, call, pushed } = await connect(daemon.home, ["--session", "agent-7"]);
    const bad = await call("wait_for_command", { command: "true" });
    expect(bad).toMatchObject({ isError: true });
    expect(bad.text).toContain("Invalid input: expected number, received undefined");
    const refused = await call("monitor__create", {
      source: { kind: "tool", name: "file__write", args: {}, condition: { path: "", operator: "exists" } },
    });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain("file__write is not a known tool");
    expect((await call("monitor__cancel", { id: "mon-99" })).text).toBe("Unknown monitor mon-99 in session agent-7");
    expect((await call("browser__tabs")).text).toContain("browser not connected");
    const observe = await call("browser__observe", { tabId: 1, url: "http://127.0.0.1/ci", selector: "#status" });
    expect(observe).toMatchObject({ isError: true });
    expect(observe.text).toContain("browser not connected");

    const armed = await call("wait_for_command", { command: "echo ready", until: 5 });
    expect(armed.json.session).toBe("agent-7");
    const taken = await call("inbox", { wait_seconds: 30 });
    expect(taken.json.wakes).toHaveLength(1);
    expect(taken.json.wakes[0].text).toContain("ready");
    expect(pushed).toEqual([]);
    const events = await call("monitor__events", { id: "mon-1" });
    expect(events.json.events[0].text).toBe("ready");
    const wp = (await call("wait_create", { label: "x", intent: "y" })).json.waitpoint;
    expect((await call("wait_check", { id: wp.id })).json.waitpoints.state).toBe("armed");
    expect((await call("wait_cancel", { id: wp.id })).json.waitpoint.state).toBe("cancelled");
    await client.close();
  });
});

describe("vigil mcp for clients without channels (Codex, Cursor, the Inspector)", () => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await TestDaemon.start();
  });
  afterAll(() => daemon.dispose());

  test("nothing is pushed or taken for them: the inbox tool returns each wake, once", async () => {
    const work = mkdtempSync(join(tmpdir(), "vigil-mcp-work-"));
    const { call, client, pushed } = await connect(daemon.home, [], work);
    const armed = await call("wait_for_command", { command: "test -f done.flag", until: 0.2, description: "job" });
    const session = armed.json.session as string;
    writeFileSync(join(work, "done.flag"), "");
    const taken = await call("inbox", { wait_seconds: 30 });
    expect(taken.json.wakes).toHaveLength(1);
    expect(taken.json.wakes[0].text).toContain('"job"');
    expect((await call("inbox", { wait_seconds: 0 })).json.wakes).toEqual([]);
    const [wake] = (await daemon.api("GET", `/api/sessions/${session}/wakes`)).body;
    expect(wake).toMatchObject({ state: "delivered", deliveredVia: "inbox claim" });
    expect(pushed).toEqual([]);
    await client.close();
  });

  test("a client that never armed anything leaves no session behind", async () => {
    const before = (await daemon.api("GET", "/api/sessions")).body.length;
    const { call, client } = await connect(daemon.home);
    expect((await call("monitor__list")).json.monitors).toEqual([]);
    await client.close();
    await waitFor(async () => (await daemon.api("GET", "/api/sessions")).body.length === before, {
      what: "the unused session to be deleted",
    });
  });

  test("launched by an agent, it binds to the agent's own session: one agent session, one Vigil session", async () => {
    const thread = "019a-thread-test";
    // As Codex's hooks report it: full access, so its checks run as before (no codex binary needed).
    const sandbox = { agent: "codex", mode: "danger-full-access", root: "/" };
    expect((await daemon.api("POST", "/api/sessions", { id: thread, sandbox })).status).toBe(201);
    for (let i = 0; i < 2; i++) {
      const { call, client } = await connect(daemon.home, [], undefined, { env: { CODEX_THREAD_ID: thread } });
      const armed = await call("wait_for_command", { command: "false", until: 5, description: `try ${i}` });
      expect(armed.json.session).toBe(thread);
      await client.close();
    }
    const session = (await daemon.api("GET", `/api/sessions/${thread}`)).body;
    expect(session.adapter.kind).toBe("codex");
    expect((await daemon.api("GET", `/api/sessions/${thread}/monitors`)).body).toHaveLength(2);
  });

  test("wait_for_command says which values it raised or lowered, as asked, used and why", async () => {
    const { call, client } = await connect(daemon.home);
    const armed = await call("wait_for_command", { command: "false", until: 600, timeout: 30 });
    expect(armed.json.monitor.adjusted).toEqual([
      { field: "timeoutSeconds", asked: 30, used: 300, why: "deadlines under 60 s use the default 300 s" },
      { field: "intervalSeconds", asked: 600, used: 75, why: "at least 4 checks must fit the 300 s deadline" },
    ]);
    expect((await call("wait_for_command", { command: "false", until: 10 })).json.monitor.adjusted).toBeUndefined();
    await client.close();
  });
});
