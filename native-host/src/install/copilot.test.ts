import { expect, test } from "vitest";
import { COPILOT_HOOKS, copilotMcpRemover, copilotRemover, isCopilotSetUp, planCopilot } from "./copilot.js";

const paths = { home: "/h/.copilot", hooks: "/h/.copilot/hooks/vigil.json", mcp: "/h/.copilot/mcp-config.json" };
const LAUNCHER = "/h/.local/bin/vigil";
const setUp = (hooks: string | null, vigilHome: string | null = null) =>
  planCopilot(paths, { hooks, mcp: null }, LAUNCHER, vigilHome)[0]?.after as string;
const mcpSetUp = (mcp: string | null) => planCopilot(paths, { hooks: null, mcp }, LAUNCHER, "/v")[1]?.after as string;

test("a new hook file holds exactly Vigil's four command hooks, version 1", () => {
  const file = JSON.parse(setUp(null, "/v"));
  expect(file.version).toBe(1);
  expect(Object.keys(file.hooks)).toEqual(Object.keys(COPILOT_HOOKS));
  expect(file.hooks.sessionStart).toEqual([
    { type: "command", bash: `${LAUNCHER} --home /v hook copilot session-start`, timeoutSec: 30 },
  ]);
  expect(file.hooks.userPromptSubmitted[0].bash).toMatch(/ hook copilot prompt$/);
  expect(file.hooks.agentStop[0].bash).toMatch(/ hook copilot stop$/);
  expect(file.hooks.sessionEnd[0].bash).toMatch(/ hook copilot session-end$/);
  expect(isCopilotSetUp(setUp(null))).toBe(true);
});

test("a second setup keeps the bytes; a changed launcher or home replaces Vigil's hooks, not adds to them", () => {
  const first = setUp(null);
  expect(setUp(first)).toBe(first);
  const moved = JSON.parse(setUp(first, "/elsewhere"));
  expect(moved.hooks.agentStop).toHaveLength(1);
  expect(moved.hooks.agentStop[0].bash).toContain("--home /elsewhere");
});

test("hooks the user added to the file stay, in place; --remove takes out only Vigil's, or the whole file", () => {
  const theirs = { type: "command", bash: "notify-send done", timeoutSec: 5 };
  const mine = JSON.stringify({ version: 1, hooks: { agentStop: [theirs], preToolUse: [theirs] } }, null, 2);
  const withOurs = JSON.parse(setUp(mine));
  expect(withOurs.hooks.agentStop).toEqual([theirs, expect.objectContaining({ bash: expect.stringMatching(/stop$/) })]);
  expect(withOurs.hooks.preToolUse).toEqual([theirs]);
  expect(JSON.parse(copilotRemover(setUp(mine)) as string)).toEqual(JSON.parse(mine));
  // Nothing of the user's in it: the file goes.
  expect(copilotRemover(setUp(null))).toBeNull();
});

test("mcp-config.json gets Vigil's local server; the user's servers stay, and --remove takes out only Vigil's", () => {
  const theirs = `${JSON.stringify({ mcpServers: { github: { type: "http", url: "https://x" } } }, null, 2)}\n`;
  const written = mcpSetUp(theirs);
  expect(JSON.parse(written).mcpServers).toEqual({
    github: { type: "http", url: "https://x" },
    vigil: { type: "local", command: LAUNCHER, args: ["--home", "/v", "mcp"], tools: ["*"] },
  });
  expect(mcpSetUp(written)).toBe(written);
  expect(copilotMcpRemover(written)).toBe(theirs);
  expect(JSON.parse(copilotMcpRemover(mcpSetUp(null)) as string)).toEqual({});
});
