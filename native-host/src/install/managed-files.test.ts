/**
 * Setup's writes on real files in a temporary folder, with another program writing the same file
 * between setup's read and its write (issue 25, suspected: Claude Code and `.claude.json`).
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { type ClaudePaths, planClaudeCode } from "./claude-code.js";
import { ManagedFiles, type PlannedFile, readText, replaceFile } from "./managed-files.js";

let dir: string;
let paths: ClaudePaths;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "vigil-managed-"));
  paths = {
    configDir: join(dir, ".claude"),
    settings: join(dir, ".claude", "settings.json"),
    state: join(dir, ".claude.json"),
  };
  mkdirSync(paths.configDir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const json = (path: string) => JSON.parse(readFileSync(path, "utf8"));
const plan = () =>
  planClaudeCode(paths, { settings: readText(paths.settings), state: readText(paths.state) }, "/opt/vigil", null);

test("Claude Code writes .claude.json after setup read it: its write is kept and Vigil's server added", () => {
  writeFileSync(paths.state, `${JSON.stringify({ numStartups: 3, projects: {} }, null, 2)}\n`);
  chmodSync(paths.state, 0o640);
  const planned = plan();
  // Claude Code, running, records a startup and a project while setup is between read and write.
  writeFileSync(
    paths.state,
    `${JSON.stringify({ numStartups: 4, projects: { "/work/app": { allowedTools: [] } } })}\n`,
  );
  new ManagedFiles(join(dir, "setup")).apply(planned);
  const state = json(paths.state);
  expect(state.numStartups).toBe(4);
  expect(state.projects).toEqual({ "/work/app": { allowedTools: [] } });
  expect(state.mcpServers.vigil).toMatchObject({ command: "/opt/vigil", args: ["mcp"] });
  // Written atomically: its mode kept, no temporary file left beside it.
  expect(statSync(paths.state).mode & 0o777).toBe(0o640);
  expect(readdirSync(dir).filter((name) => name.includes(".tmp"))).toEqual([]);
  expect(json(paths.settings).hooks.Stop).toBeDefined();
});

test("a write that lands again while setup merges: merged once more, nothing lost", () => {
  writeFileSync(paths.state, '{"numStartups":1}\n');
  const state = plan().find((file) => file.path === paths.state) as PlannedFile;
  writeFileSync(paths.state, '{"numStartups":2}\n');
  let writes = 0;
  const racing: PlannedFile = {
    ...state,
    // The program writes once more, just as setup works its change into the text it read.
    remerge: (text) => {
      if (writes++ === 0) writeFileSync(paths.state, '{"numStartups":3,"tipsHistory":{"a":1}}\n');
      return state.remerge?.(text) ?? null;
    },
  };
  replaceFile(racing);
  expect(writes).toBe(2);
  expect(json(paths.state)).toMatchObject({ numStartups: 3, tipsHistory: { a: 1 }, mcpServers: { vigil: {} } });
});

test("a file that never stops changing is left as its program wrote it, and setup says so", () => {
  writeFileSync(paths.state, '{"numStartups":1}\n');
  const state = plan().find((file) => file.path === paths.state) as PlannedFile;
  let startups = 1;
  const restless: PlannedFile = {
    ...state,
    before: "stale",
    remerge: (text) => {
      writeFileSync(paths.state, `{"numStartups":${++startups}}\n`);
      return state.remerge?.(text) ?? null;
    },
  };
  expect(() => replaceFile(restless, 3)).toThrow(
    `${paths.state} kept changing while setup was writing it (3 tries); nothing was written to it: run setup again`,
  );
  expect(json(paths.state)).toEqual({ numStartups: startups });
});

test("a file without a way to merge again is refused, not overwritten, when it changed since it was read", () => {
  const file = join(dir, "launcher");
  writeFileSync(file, "theirs\n");
  expect(() => replaceFile({ path: file, before: "what setup read\n", after: "ours\n" })).toThrow(
    `${file} changed while setup was writing it; nothing was written to it: run setup again`,
  );
  expect(readFileSync(file, "utf8")).toBe("theirs\n");
});
