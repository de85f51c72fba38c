/**
 * Issue #37 (High 2): a check armed for a session whose Codex agent runs in workspace-write runs in
 * Codex's own sandbox (the real Codex 0.169): it writes in the session's folder, not outside it,
 * and reaches no network, not even a server on 127.0.0.1; a Codex session whose sandbox was never
 * reported runs its checks read-only; danger-full-access and other agents run as before.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { homedir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, expect, test } from "vitest";
import { BIN, TestDaemon, waitFor } from "../helpers/daemon.js";
import { cliBinDir } from "./agent-clis.js";

// Codex's workspace-write lets the sandbox write /tmp: what must stay unwritten lies outside it.
const base = mkdtempSync(join(homedir(), ".cache", "vigil-sandbox-test-"));
const work = join(base, "work");
const outside = join(base, "outside");
let daemon: TestDaemon;
let server: Server;
/** Requests the server received, by path: each attack curls its own name. */
const hits = new Map<string, number>();
const hitsOf = (name: string) => hits.get(`/${name}`) ?? 0;
let url = "";

beforeAll(async () => {
  mkdirSync(work);
  mkdirSync(outside);
  mkdirSync(join(base, "codex-home"));
  server = createServer((req, res) => {
    hits.set(req.url ?? "", (hits.get(req.url ?? "") ?? 0) + 1);
    res.end("hit");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  daemon = await TestDaemon.start({
    env: { PATH: `${cliBinDir()}:${process.env.PATH}`, CODEX_HOME: join(base, "codex-home") },
  });
});
afterAll(async () => {
  await daemon?.dispose();
  server?.close();
  rmSync(base, { recursive: true, force: true });
});

let n = 0;
/** Arms `command` for a new session made with `body`; returns its view once the first check has run. */
async function armedFor(body: Record<string, unknown>, command: string) {
  const sid = `sbx-${++n}`;
  const made = await daemon.api("POST", "/api/sessions", { id: sid, root: work, ...body });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const armed = await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
    source: { kind: "command", command, cwd: work },
    // Room for Codex to set up its sandbox within the check's time (the interval here).
    intervalSeconds: 5,
    timeoutSeconds: 60,
  });
  expect(armed.status, JSON.stringify(armed.body)).toBe(201);
  const id = armed.body.id as string;
  const view = await waitFor(
    async () => {
      const { body: current } = await daemon.api("GET", `/api/sessions/${sid}/monitors/${id}`);
      return current.lastCheckAt ? current : null;
    },
    { timeoutMs: 30_000, what: `the first check of ${id}` },
  );
  return { sid, id, view };
}

const attack = (name: string) =>
  `touch ${work}/${name}-inside; touch ${outside}/${name}; curl -s -m 3 ${url}${name} >/dev/null; exit 1`;

test("workspace-write: the check writes its folder, not outside it, and reaches no network", async () => {
  const sandbox = { agent: "codex", mode: "workspace-write", root: work };
  const { view } = await armedFor({ sandbox }, attack("ws"));
  expect(existsSync(join(work, "ws-inside")), JSON.stringify(view.lastObservation)).toBe(true);
  expect(existsSync(join(outside, "ws"))).toBe(false);
  expect(hitsOf("ws")).toBe(0);
  expect(JSON.stringify(view.lastObservation)).toMatch(/Read-only file system/);
  expect(view.sandbox).toBe(`runs in Codex's sandbox (workspace-write, ${work})`);
});

test("a Codex session whose sandbox was never reported runs its checks read-only (fail closed)", async () => {
  const { view } = await armedFor({ adapter: { kind: "codex" } }, attack("unknown"));
  expect(existsSync(join(work, "unknown-inside"))).toBe(false);
  expect(existsSync(join(outside, "unknown"))).toBe(false);
  expect(hitsOf("unknown")).toBe(0);
  expect(view.sandbox).toBe(`runs in Codex's sandbox (read-only, ${work})`);
});

test("a sandbox reported after arming never changes an armed check; danger-full-access runs as before", async () => {
  const sandbox = { agent: "codex", mode: "workspace-write", root: work };
  const { sid, id } = await armedFor({ sandbox }, attack("later"));
  // The session now says full access: the armed check keeps running sandboxed.
  const patched = await daemon.api("PATCH", `/api/sessions/${sid}`, {
    sandbox: { ...sandbox, mode: "danger-full-access" },
  });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  rmSync(join(work, "later-inside"));
  await waitFor(() => existsSync(join(work, "later-inside")), { timeoutMs: 30_000, what: "a check after the change" });
  expect(existsSync(join(outside, "later"))).toBe(false);
  expect(hitsOf("later")).toBe(0);
  expect((await daemon.api("GET", `/api/sessions/${sid}/monitors/${id}`)).body.sandbox).toMatch(/workspace-write/);
  // A check armed now runs with the session's full access, as every check did before.
  const full = await armedFor({ sandbox: { ...sandbox, mode: "danger-full-access" } }, attack("full"));
  expect(existsSync(join(outside, "full"))).toBe(true);
  expect(hitsOf("full")).toBeGreaterThan(0);
  expect(full.view.sandbox).toBeNull();
});

test("MCP: a check Codex arms through `vigil mcp` (no session named) runs read-only", async () => {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    ...daemon.env,
    VIGIL_HOME: daemon.home,
  };
  for (const name of ["CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID", "VIGIL_SESSION"]) delete env[name];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "--home", daemon.home, "mcp"],
    env,
    stderr: "pipe",
    cwd: work,
  });
  // What Codex 0.169 calls itself in the MCP handshake.
  const client = new Client({ name: "codex-mcp-client", version: "0.169.0" });
  await client.connect(transport);
  try {
    const result = (await client.callTool({
      name: "wait_for_command",
      arguments: { command: attack("mcp"), until: 5, description: "escape" },
    })) as { content: Array<{ text: string }> };
    const { session, monitor } = JSON.parse(result.content[0]?.text ?? "{}");
    const view = await waitFor(
      async () => {
        const { body } = await daemon.api("GET", `/api/sessions/${session}/monitors/${monitor.id}`);
        return body.lastCheckAt ? body : null;
      },
      { timeoutMs: 30_000, what: "the MCP-armed check" },
    );
    expect(view.sandbox).toBe(`runs in Codex's sandbox (read-only, ${work})`);
    expect(existsSync(join(work, "mcp-inside"))).toBe(false);
    expect(existsSync(join(outside, "mcp"))).toBe(false);
    expect(hitsOf("mcp")).toBe(0);
  } finally {
    await client.close();
  }
});
