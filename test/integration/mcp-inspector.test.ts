/**
 * Every Vigil tool driven by the real MCP Inspector CLI (issue #17), the way a person tries a server:
 * `mcp-inspector --cli -e VIGIL_HOME=… node bin/vigil.js mcp --method tools/call --tool-name NAME
 * --tool-arg key=value …`. The Inspector parses each value as JSON when it can and otherwise
 * converts it by the property's advertised type, so this checks the schemas as much as the tools.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Ajv, ValidateFunction } from "ajv";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BIN, TestDaemon } from "../helpers/daemon.js";
import { jsonServer } from "../helpers/json-server.js";
import { NativePort } from "../helpers/native-port.js";
import { ensureInspector, INSPECTOR } from "../mcp/inspector-cli.js";
import { compile, makeAjv } from "../mcp/schema-rules.js";

const SESSION = "inspector";
const PAGE = "http://127.0.0.1:9/ci/42";
/** The Inspector's exit code for a tool that answered isError. */
const TOOL_ERROR = 5;

let inspector: string;
let daemon: TestDaemon;
let port: NativePort;
let ci: Awaited<ReturnType<typeof jsonServer>>;
let home: string;
let ajv: Ajv;
const outputs = new Map<string, ValidateFunction>();

beforeAll(async () => {
  inspector = ensureInspector();
  daemon = await TestDaemon.start();
  ci = await jsonServer({ status: "running" });
  port = await NativePort.browserOn(daemon, PAGE);
  // The Inspector keeps a catalog and secrets under ~/.mcp-inspector: give it a home of its own.
  home = mkdtempSync(join(tmpdir(), "vigil-inspector-home-"));
  ajv = makeAjv();
}, 660_000);

afterAll(async () => {
  await port?.close();
  await ci?.close();
  await daemon?.dispose();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** One Inspector CLI run against `vigil mcp` on the test daemon's home, bound to one session. */
async function inspect(method: string, extra: string[] = []) {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), HOME: home };
  for (const name of ["CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID", "VIGIL_SESSION", "VIGIL_HOME"]) delete env[name];
  // The Inspector hands a stdio server only a minimal environment plus its -e pairs.
  const run = await execa(
    process.execPath,
    [
      inspector,
      "--cli",
      "-e",
      `VIGIL_HOME=${daemon.home}`,
      "-e",
      `VIGIL_SESSION=${SESSION}`,
      process.execPath,
      BIN,
      "mcp",
      "--method",
      method,
      ...extra,
    ],
    { env, extendEnv: false, reject: false, timeout: 60_000 },
  );
  let result: any;
  try {
    result = JSON.parse(run.stdout);
  } catch {
    result = undefined;
  }
  return { exitCode: run.exitCode, stdout: run.stdout, stderr: run.stderr, result };
}

/** tools/call with `--tool-arg key=value` pairs, exactly as typed on a command line. */
async function callTool(name: string, pairs: string[] = []) {
  return inspect("tools/call", ["--tool-name", name, ...pairs.flatMap((pair) => ["--tool-arg", pair])]);
}

const called = new Set<string>();

/** A call that must succeed: exit 0, structured content valid for the tool's outputSchema. */
async function ok(name: string, pairs: string[] = []) {
  const run = await callTool(name, pairs);
  expect(run.exitCode, `${name} ${pairs.join(" ")}:\n${run.stdout}\n${run.stderr}`).toBe(0);
  const structured = run.result.structuredContent;
  const valid = outputs.get(name)!;
  expect(valid(structured), `${name}: ${ajv.errorsText(valid.errors)}`).toBe(true);
  expect(JSON.parse(run.result.content[0].text)).toEqual(structured);
  expect(structured.session).toBe(SESSION);
  called.add(name);
  return structured;
}

/** A call the tool refuses: exit 5 (isError), the tool's message in the result. */
async function refused(name: string, pairs: string[]) {
  const run = await callTool(name, pairs);
  expect(run.exitCode, `${name} ${pairs.join(" ")}:\n${run.stdout}\n${run.stderr}`).toBe(TOOL_ERROR);
  expect(run.result.isError).toBe(true);
  called.add(name);
  return run.result.content[0].text as string;
}

describe(`the MCP Inspector CLI ${INSPECTOR.version}`, () => {
  test("tools/list --strict: every schema portable (no errors); the only warnings are deliberate type lists", async () => {
    const run = await inspect("tools/list", ["--strict"]);
    expect(run.exitCode, run.stderr).toBe(0);
    const tools = run.result.tools as Array<{ name: string; outputSchema: unknown }>;
    expect(tools).toHaveLength(15);
    for (const tool of tools) outputs.set(tool.name, compile(ajv, tool.outputSchema));

    // Each finding is "Warning|Error: tool "NAME"", "  Path: …", "  Issue: …".
    const findings = [
      ...run.stderr.matchAll(/^(Warning|Error): tool "([^"]+)"\n {2}Path: (\S+)\n {2}Issue: (.*)$/gm),
    ].map(([, severity, tool, path, issue]) => ({ severity, tool, path, issue: issue as string }));
    expect(findings.filter((f) => f.severity === "Error")).toEqual([]);
    // Inputs: quorum (a number or "all") and a condition's comparison value (any JSON) list their
    // types; nothing else is flagged.
    expect(findings.filter((f) => f.path.startsWith("inputSchema")).map((f) => `${f.tool} ${f.path}`)).toEqual([
      "monitor__create inputSchema.properties.source.properties.condition.properties.value",
      "monitor__create inputSchema.properties.source.properties.fallback.properties.condition.properties.value",
      "wait_create inputSchema.properties.quorum",
    ]);
    // Outputs: only nullable fields (["string", "null"]).
    for (const finding of findings.filter((f) => f.path.startsWith("outputSchema"))) {
      expect(finding.issue, `${finding.tool} ${finding.path}`).toMatch(/^`type` is an array \(\[".+",\s*"null"\]\)/);
    }
  }, 60_000);

  test("every tool, called with --tool-arg key=value, answers structured content matching its outputSchema", async () => {
    expect(outputs.size, "tools/list ran first").toBe(15);
    const armed = await ok("wait_for_command", ["command=echo ready", "until=0.2", "description=build"]);
    expect(armed.monitor).toMatchObject({ id: "mon-1", kind: "command", state: "waiting" });

    // Sources as JSON values of one --tool-arg, the way the Inspector's README shows objects.
    const at = new Date(Date.now() + 600_000).toISOString().replace(/\.\d+Z$/, "Z");
    const tool = await ok("monitor__create", [
      "name=CI run",
      `source=${JSON.stringify({
        kind: "tool",
        name: "http__get",
        args: { url: ci.url },
        condition: { path: "body.status", operator: "equals", value: "done" },
      })}`,
      "intervalSeconds=10",
      "continuation=merge the PR",
    ]);
    expect(tool.monitor).toMatchObject({ id: "mon-2", name: "CI run", kind: "tool" });
    const time = await ok("monitor__create", [`source={"kind":"time","at":"${at}"}`, "timeoutSeconds=1800"]);
    expect(time.monitor.kind).toBe("time");
    const browser = await ok("monitor__create", [
      `source=${JSON.stringify({ kind: "browser", tabId: 7, url: PAGE, selector: "#status", condition: { path: "text", operator: "equals", value: "Done" } })}`,
    ]);
    expect(browser.monitor.kind).toBe("browser");

    expect((await ok("monitor__list")).monitors.map((m: any) => m.id)).toEqual(["mon-1", "mon-2", "mon-3", "mon-4"]);
    expect((await ok("monitor__pause", ["id=mon-2"])).monitor.state).toBe("paused");
    expect((await ok("monitor__resume", ["id=mon-2"])).monitor.state).toBe("waiting");
    expect((await ok("monitor__cancel", ["id=mon-4"])).monitor.state).toBe("cancelled");

    await daemon.waitForState(SESSION, "mon-1", ["ready", "finished"]);
    expect((await ok("monitor__events", ["id=mon-1"])).events[0].text).toBe("ready");
    expect((await ok("monitor__checks", ["id=mon-1"])).checks.map((c: any) => c.outcome)).toContain("met");

    // A barrier: members as a JSON array, quorum=all as the bare word (and a number as a number).
    const barrier = await ok("wait_create", [
      "label=training",
      "intent=compare the two arms' loss, then keep the better one",
      'members=["arm1","arm2"]',
      "quorum=all",
      "fail_fast=true",
      "expires_in_hours=2",
    ]);
    const wp = barrier.waitpoint.id as string;
    expect(barrier.waitpoint.how_to_signal.member_note).toContain("arm1, arm2");
    const mailbox = await ok("wait_create", ["label=jobs", "intent=collect results", "quorum=1", "max_signals=3"]);
    expect((await ok("wait_check", [`id=${wp}`])).waitpoints).toMatchObject({ quorum: 2, members: ["arm1", "arm2"] });
    expect((await ok("wait_check")).waitpoints.map((w: any) => w.id)).toEqual([wp, mailbox.waitpoint.id]);
    expect((await ok("wait_cancel", [`id=${wp}`])).waitpoint.state).toBe("cancelled");
    // What a generic client sends when the value is typed as a string: digits read as the number.
    const typed = await ok("wait_create", ["label=typed", "intent=digits as strings", 'quorum="1"', 'max_signals="2"']);
    expect((await ok("wait_check", [`id=${typed.waitpoint.id}`])).waitpoints).toMatchObject({
      quorum: 1,
      maxSignals: 2,
    });
    expect((await ok("wait_cancel", [`id=${typed.waitpoint.id}`])).waitpoint.state).toBe("cancelled");

    expect((await ok("device__list")).devices).toEqual([]);

    expect((await ok("browser__tabs")).tabs).toEqual([{ tabId: 7, url: PAGE, title: "CI", active: true, windowId: 1 }]);
    expect((await ok("browser__observe", ["tabId=7", `url=${PAGE}`, "selector=#status"])).observation).toMatchObject({
      text: "Running",
      exists: true,
    });

    expect((await ok("inbox", ["wait_seconds=10"])).wakes[0].text).toContain("ready");
    expect((await ok("inbox", ["all=true"])).wakes[0]).toMatchObject({
      state: "delivered",
      deliveredVia: "inbox claim",
    });

    expect([...called].sort()).toEqual([...outputs.keys()].sort());
  }, 300_000);

  test("refusals come back as tool errors naming the field", async () => {
    // A value that is not JSON stays a string: a source must be an object.
    expect(await refused("monitor__create", ["source=time"])).toContain("expected object, received string at source");
    expect(await refused("monitor__create", [`source={"kind":"time","at":"soon"}`])).toContain(
      "Expected a UTC ISO time",
    );
    expect(await refused("wait_create", ["label=x", "intent=y", 'members=["a","b"]', "quorum=3"])).toContain(
      "Expected a quorum of at most 2",
    );
    expect(await refused("wait_create", ["label=x", "intent=y", "quorum=most"])).toContain(
      'quorum: Expected a number or "all", got "most"',
    );
    expect(await refused("monitor__cancel", ["id=mon-99"])).toBe(`Unknown monitor mon-99 in session ${SESSION}`);
  }, 120_000);
});
