/**
 * Ids are checked against their pattern before any URL is made (issue 25, finding 7): `wait_cancel
 * {"id":".."}` once became `DELETE /api/sessions/S/` (the URL parser resolves `..`) and deleted the
 * whole session. Now the MCP tools, the CLI and the server each refuse an id that is not a session
 * id, `mon-N`, `wp_` + 12 hex or `wake-N`, and pathOf refuses `.`, `..` and empty values.
 */
import { request } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, expect, test } from "vitest";
import { BIN, TestDaemon } from "../helpers/daemon.js";

let daemon: TestDaemon;

beforeAll(async () => {
  daemon = await TestDaemon.start();
});
afterAll(() => daemon.dispose());

/** The real `vigil mcp`, bound to `session`, driven by the official SDK client over stdio. */
async function mcp(session: string) {
  const env: Record<string, string> = { ...(process.env as Record<string, string>) };
  for (const name of ["CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID", "VIGIL_SESSION"]) delete env[name];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "--home", daemon.home, "mcp", "--session", session],
    env,
    stderr: "pipe",
  });
  const client = new Client({ name: "hostile-agent", version: "1.0.0" });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as {
      content: Array<{ text: string }>;
      isError?: boolean;
    };
    return { isError: result.isError === true, text: result.content[0]?.text ?? "" };
  };
  return { client, call };
}

/** What the session holds, straight from the API: its monitors' ids and states (or the error, once gone). */
async function holdings(sid: string): Promise<{ session: number; monitors: Array<{ id: string; state: string }> }> {
  const session = await daemon.api("GET", `/api/sessions/${sid}`);
  const monitors = await daemon.api("GET", `/api/sessions/${sid}/monitors`);
  return {
    session: session.status,
    monitors: Array.isArray(monitors.body)
      ? (monitors.body as Array<{ id: string; state: string }>).map(({ id, state }) => ({ id, state }))
      : monitors.body,
  };
}

/** A request sent exactly as written (fetch would resolve `..` and `%2e%2e` itself). */
function raw(method: string, path: string): Promise<{ status: number; body: { error?: { message: string } } }> {
  return new Promise((resolve, reject) => {
    const req = request({ method, socketPath: daemon.socket, path }, (res) => {
      let text = "";
      res.on("data", (chunk) => {
        text += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on("error", reject);
    req.end();
  });
}

const BAD_IDS = ["..", ".", "", "../..", "mon-1/..", "wp_000000000000/../..", "%2e%2e", "mon-1?x=1", "mon-1#x"];

test('wait_cancel {"id":".."} over MCP is a tool error, and the session keeps its monitors', async () => {
  const { client, call } = await mcp("agent-9");
  try {
    expect((await call("wait_for_command", { command: "false", until: 5, timeout: 600 })).isError).toBe(false);
    const armed = await call("wait_create", { label: "job", intent: "read its result" });
    expect(armed.isError).toBe(false);
    const before = await holdings("agent-9");
    expect(before.session).toBe(200);
    expect(before.monitors.map((m) => m.state)).toEqual(["waiting", "waiting"]);

    const cancel = await call("wait_cancel", { id: ".." });
    expect(await holdings("agent-9")).toEqual(before);
    expect(cancel.isError).toBe(true);
    expect(cancel.text).toContain("Expected a waitpoint id");
    for (const id of BAD_IDS) {
      for (const tool of ["wait_cancel", "wait_check", "monitor__cancel", "monitor__pause", "monitor__events"]) {
        const answer = await call(tool, { id });
        expect(answer.isError, `${tool} ${JSON.stringify(id)}: ${answer.text}`).toBe(true);
      }
    }
    expect(await holdings("agent-9")).toEqual(before);
  } finally {
    await client.close();
  }
});

test("the CLI refuses such ids as usage errors (exit 2) before it sends anything", async () => {
  const sid = await daemon.newSession("cli");
  const made = await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
    source: { kind: "command", command: "false" },
    intervalSeconds: 5,
    timeoutSeconds: 600,
  });
  expect(made.status).toBe(201);
  const before = await holdings(sid);
  for (const args of [
    ["cancel", "..", "--session", sid],
    ["pause", ".", "--session", sid],
    ["show", "mon-1/..", "--session", sid],
    ["cancel", "mon-1", "--session", ".."],
    ["sessions", "rm", ".."],
    ["retry", "../.."],
    ["inbox", "--session", "."],
  ]) {
    const result = await daemon.cli(args);
    expect(result.exitCode, `vigil ${args.join(" ")}: ${result.stderr}`).toBe(2);
    expect(result.stderr).toMatch(/Expected a (session|monitor|wake) id/);
  }
  expect(await holdings(sid)).toEqual(before);
});

test("the server refuses a path parameter that is not an id of its kind (400), before looking anything up", async () => {
  const sid = await daemon.newSession("http");
  const made = await daemon.api("POST", `/api/sessions/${sid}/waitpoints`, { label: "job", intent: "read it" });
  expect(made.status).toBe(201);
  const before = await holdings(sid);
  for (const [method, path] of [
    ["DELETE", `/api/sessions/${sid}/waitpoints/%2E%2E`],
    ["DELETE", `/api/sessions/${sid}/waitpoints/%2e`],
    ["GET", `/api/sessions/${sid}/waitpoints/mon-1`],
    ["POST", `/api/sessions/${sid}/monitors/%2E%2E/control`],
    ["GET", `/api/sessions/${sid}/monitors/wake-1`],
    ["GET", "/api/sessions/%2E%2E"],
    ["DELETE", "/api/sessions/%2E"],
    ["GET", `/api/sessions/${sid}/wakes/%2E%2E`],
    ["GET", "/api/wakes/mon-1"],
  ] as const) {
    const answer = await raw(method, path);
    expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(400);
    expect(answer.body.error?.message).toMatch(/Expected a (session|monitor|waitpoint|wake) id/);
  }
  // A well-formed id that names nothing is still a 404.
  expect((await raw("GET", `/api/sessions/${sid}/waitpoints/wp_000000000000`)).status).toBe(404);
  expect(await holdings(sid)).toEqual(before);
});
