/**
 * `vigil setup copilot` on real files in a temporary HOME: GitHub Copilot CLI's user hook folder
 * gets Vigil's own file with four hooks; the user's hook files, and hooks they add to Vigil's file,
 * stay; a second run changes nothing; --dry-run writes nothing; --remove takes out only Vigil's
 * part; doctor says what is missing.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { expect, test } from "vitest";
import { BIN } from "../helpers/daemon.js";
import { readIfThere, useSetupHome } from "../helpers/setup-home.js";

let home: string;
let vigilHome: string;
let env: Record<string, string>;

useSetupHome("vigil-setup-copilot-", (made) => {
  ({ home, vigilHome, env } = made);
});

const setup = (...args: string[]) => execa(process.execPath, [BIN, "--home", vigilHome, "setup", ...args], { env });
const doctor = async () =>
  (await execa(process.execPath, [BIN, "--home", vigilHome, "doctor"], { env, reject: false })).stdout;
const read = readIfThere;

test("setup copilot: --dry-run writes nothing, setup adds the four hooks, a second run changes nothing, --remove keeps the user's hooks", async () => {
  const hooks = join(home, ".copilot", "hooks");
  const ours = join(hooks, "vigil.json");
  const mcp = join(home, ".copilot", "mcp-config.json");
  const SERVERS = `${JSON.stringify({ mcpServers: { github: { type: "http", url: "https://x" } } }, null, 2)}\n`;
  const USER = `${JSON.stringify({ version: 1, hooks: { agentStop: [{ type: "command", bash: "notify-send done" }] } }, null, 2)}\n`;
  mkdirSync(hooks, { recursive: true });
  writeFileSync(join(hooks, "mine.json"), USER);
  writeFileSync(mcp, SERVERS);
  expect(await doctor()).toMatch(
    /FIX\s+Copilot CLI lacks Vigil's session-start hook, prompt hook, stop hook, session-end hook, MCP server/,
  );

  const dry = await setup("copilot", "--dry-run");
  expect(dry.stdout).toContain(`create ${ours}`);
  expect(dry.stdout).toContain("hook copilot session-start");
  expect(existsSync(ours)).toBe(false);

  await setup("copilot");
  const file = JSON.parse(read(ours) as string);
  expect(file.version).toBe(1);
  expect(file.hooks.sessionStart[0]).toEqual({
    type: "command",
    bash: `${join(home, ".local", "bin", "vigil")} --home ${vigilHome} hook copilot session-start`,
    timeoutSec: 30,
  });
  expect(file.hooks.agentStop[0].bash).toMatch(/ hook copilot stop$/);
  expect(read(join(hooks, "mine.json"))).toBe(USER);
  expect(JSON.parse(read(mcp) as string).mcpServers).toEqual({
    github: { type: "http", url: "https://x" },
    vigil: {
      type: "local",
      command: join(home, ".local", "bin", "vigil"),
      args: ["--home", vigilHome, "mcp"],
      tools: ["*"],
    },
  });
  const bytes = read(ours);
  expect((await setup("copilot")).stdout).toContain("copilot: already set up; nothing changed");
  expect(read(ours)).toBe(bytes);
  expect((await setup("copilot", "--dry-run")).stdout).toContain("copilot: nothing to change");
  const after = await doctor();
  expect(after).toMatch(/ok\s+Copilot CLI hooks in \S+ and MCP server in /);
  expect(after).toMatch(/ok\s+copilot's hooks run /);

  // A hook the user put into Vigil's file stays; --remove takes out only Vigil's part.
  const edited = JSON.parse(bytes as string);
  edited.hooks.preToolUse = [{ type: "command", bash: "audit-log" }];
  writeFileSync(ours, JSON.stringify(edited, null, 2));
  await setup("copilot", "--remove");
  expect(JSON.parse(read(ours) as string)).toEqual({
    version: 1,
    hooks: { preToolUse: [{ type: "command", bash: "audit-log" }] },
  });
  expect(read(join(hooks, "mine.json"))).toBe(USER);
  expect(read(mcp)).toBe(SERVERS);

  // With nothing of the user's in it, --remove deletes Vigil's file and the launcher.
  rmSync(ours);
  await setup("copilot");
  await setup("copilot", "--remove");
  expect(readdirSync(hooks)).toEqual(["mine.json"]);
  expect(existsSync(join(home, ".local", "bin", "vigil"))).toBe(false);
});
