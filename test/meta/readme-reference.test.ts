/**
 * The reference tables (docs/reference.md) cannot drift from the code: the CLI table lists exactly
 * the commands the program has (cli/main.ts buildProgram), each with its own description and all
 * its options; the HTTP table exactly the routes the server registers (shared/api-routes.ts), with the
 * same method and auth; the MCP table exactly the tools `vigil mcp` registers, with the fields of
 * each result and an example call its input schema accepts; and the environment table exactly the
 * variables Vigil reads (base/config.ts EnvSchema).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Command } from "commander";
import { expect, test, vi } from "vitest";
import { EnvSchema } from "../../native-host/src/base/config.js";
import { homePaths } from "../../native-host/src/base/paths.js";
import { buildProgram, commandPath } from "../../native-host/src/cli/main.js";
import { runMcpServer } from "../../native-host/src/mcp/server.js";
import { ROUTES } from "../../shared/api-routes.js";
import { compile, makeAjv } from "../mcp/schema-rules.js";

// `vigil mcp` in this process: no daemon (listing tools asks it nothing) and an in-memory transport
// in place of stdio, so the official SDK client reads the real tools/list.
const linked = vi.hoisted(() => ({ server: undefined as unknown }));
vi.mock("../../native-host/src/daemon-launch.js", () => ({ ensureDaemon: async () => "http://127.0.0.1:9" }));
vi.mock("@modelcontextprotocol/sdk/server/stdio.js", () => {
  function StdioServerTransport() {
    return linked.server;
  }
  return { StdioServerTransport };
});

const REFERENCE = readFileSync(join(import.meta.dirname, "..", "..", "docs", "reference.md"), "utf8");

/** The body of the section under `## TITLE`, up to the next `## `. */
function section(title: string): string {
  const start = REFERENCE.indexOf(`\n## ${title}\n`);
  expect(start, `docs/reference.md has a "## ${title}" section`).toBeGreaterThan(-1);
  const end = REFERENCE.indexOf("\n## ", start + 1);
  return REFERENCE.slice(start, end === -1 ? undefined : end);
}

/** A table row's cells, `\|` kept inside its cell. */
const cells = (row: string) =>
  row
    .slice(1, -1)
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());

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

test("the CLI table lists every command, and only those, with its own description and every option", () => {
  const all = (command: Command): Command[] => [command, ...command.commands.flatMap(all)];
  const commands = new Map(
    all(buildProgram())
      .slice(1)
      .map((command) => [commandPath(command), command]),
  );
  // A row's command is `vigil` and the lowercase words after it; its arguments are written in
  // capitals (ID, MONITOR), or as choices (`busy\|idle`), or are options.
  const rows = [...section("CLI").matchAll(/^\| `vigil .*\|$/gm)].map(([row]) => {
    const [usage = "", description = "", options = ""] = cells(row);
    const words = usage.slice(1, -1).split(" ");
    const end = words.findIndex((word, at) => at > 0 && !/^[a-z][a-z-]*$/.test(word));
    return {
      path: words.slice(0, end === -1 ? undefined : end).join(" "),
      description: description.replaceAll("`", ""),
      flags: [...new Set([...`${usage} ${options}`.matchAll(/--[a-z][a-z-]*/g)].map(([flag]) => flag))],
    };
  });
  expect(rows.map((row) => row.path).sort()).toEqual([...commands.keys()].sort());
  for (const row of rows) {
    const command = commands.get(row.path) as Command;
    expect(row.description, row.path).toBe(command.description());
    expect(row.flags.sort(), `${row.path}: the options it names`).toEqual(
      command.options.map((option) => option.long).sort(),
    );
  }
});

test("the MCP table lists every tool, and only those, with its result's fields and an example call it accepts", async () => {
  const home = mkdtempSync(join(tmpdir(), "vigil-reference-"));
  writeFileSync(homePaths(home).daemonJson, JSON.stringify({ pid: 0, port: 9, url: "http://127.0.0.1:9" }));
  writeFileSync(homePaths(home).token, "unused");
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  linked.server = serverSide;
  const running = runMcpServer({ home, session: "reference", log: () => {} });
  const client = new Client({ name: "reference", version: "1.0.0" });
  try {
    await client.connect(clientSide);
    const { tools } = await client.listTools();
    const rows = [...section("MCP tools").matchAll(/^\| `([a-z_]+)` +\|.*\|$/gm)].map(([row, name]) => {
      const [, , returns = "", example = ""] = cells(row);
      return { name: name as string, returns, example };
    });
    expect(rows.map((row) => row.name).sort()).toEqual(tools.map((tool) => tool.name).sort());
    const ajv = makeAjv();
    for (const row of rows) {
      const tool = tools.find((t) => t.name === row.name)!;
      const fields = /^`\{([^}`]*)\}`/.exec(row.returns)?.[1]?.split(", ");
      expect(fields, `${row.name}: its result's fields`).toEqual(Object.keys(tool.outputSchema?.properties ?? {}));
      const call = /^`([a-z_]+) (\{.*\})`$/.exec(row.example);
      expect(call?.[1], `${row.name}: an example call of this tool`).toBe(row.name);
      const accepts = compile(ajv, tool.inputSchema);
      expect(accepts(JSON.parse(call?.[2] ?? "null")), `${row.name}: ${ajv.errorsText(accepts.errors)}`).toBe(true);
    }
  } finally {
    await client.close();
    await running;
    rmSync(home, { recursive: true, force: true });
  }
});
