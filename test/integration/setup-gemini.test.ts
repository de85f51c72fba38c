/**
 * `vigil setup gemini` on real files in a temporary HOME: Gemini CLI's settings.json gets Vigil's
 * four hooks and its MCP entry, the user's own settings and hooks stay; a second run changes
 * nothing; --dry-run writes nothing; --remove restores the bytes (or takes out only Vigil's part
 * after the user's edits); the shared launcher stays while another agent is set up; doctor says
 * what is missing. And `vigil setup opencode`, whose plugin file is wholly Vigil's.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { expect, test } from "vitest";
import { BIN } from "../helpers/daemon.js";
import { readIfThere, useSetupHome } from "../helpers/setup-home.js";

let home: string;
let vigilHome: string;
let env: Record<string, string>;

useSetupHome("vigil-setup-gemini-", (made) => {
  ({ home, vigilHome, env } = made);
});

const setup = (...args: string[]) => execa(process.execPath, [BIN, "--home", vigilHome, "setup", ...args], { env });
const read = readIfThere;
const settings = () => join(home, ".gemini", "settings.json");
const SETTINGS = `{\n  "security": { "auth": { "selectedType": "gemini-api-key" } },\n  "mcpServers": { "github": { "command": "gh-mcp" } },\n  "hooks": {\n    "AfterAgent": [{ "hooks": [{ "type": "command", "command": "notify-send done" }] }]\n  }\n}\n`;

test("adds the four hooks and the MCP entry, keeps the user's own, and a second run changes nothing", async () => {
  mkdirSync(join(home, ".gemini"));
  writeFileSync(settings(), SETTINGS);
  await setup("gemini");
  const after = JSON.parse(read(settings()) as string);
  expect(after.security.auth.selectedType).toBe("gemini-api-key");
  expect(after.mcpServers.github.command).toBe("gh-mcp");
  expect(after.mcpServers.vigil).toEqual({
    command: join(home, ".local", "bin", "vigil"),
    args: ["--home", vigilHome, "mcp"],
  });
  expect(after.hooks.AfterAgent[0].hooks[0].command).toBe("notify-send done");
  const ours = (event: string) =>
    after.hooks[event].flatMap((g: any) => g.hooks).filter((h: any) => / hook gemini /.test(h.command));
  expect(ours("SessionStart")[0]).toMatchObject({
    type: "command",
    command: expect.stringMatching(/\.local\/bin\/vigil --home \S+ hook gemini session-start$/),
    timeout: 30_000,
  });
  expect(ours("BeforeAgent")[0].command).toMatch(/ hook gemini prompt$/);
  expect(ours("AfterAgent")[0].command).toMatch(/ hook gemini stop$/);
  expect(ours("SessionEnd")[0].command).toMatch(/ hook gemini session-end$/);

  const bytes = read(settings());
  const again = await setup("gemini");
  expect(again.stdout).toContain("gemini: already set up; nothing changed");
  expect(read(settings())).toBe(bytes);
  expect((await setup("gemini", "--dry-run")).stdout).toContain("gemini: nothing to change");
});

test("--dry-run prints the change and writes nothing", async () => {
  const { stdout } = await setup("gemini", "--dry-run");
  expect(stdout).toContain(`create ${settings()}`);
  expect(stdout).toContain("hook gemini session-start");
  expect(existsSync(settings())).toBe(false);
});

test("--remove restores the bytes, or takes out only Vigil's part after the user's edits", async () => {
  mkdirSync(join(home, ".gemini"));
  writeFileSync(settings(), SETTINGS);
  await setup("gemini");
  await setup("gemini", "--remove");
  expect(read(settings())).toBe(SETTINGS);

  await setup("gemini");
  const edited = JSON.parse(read(settings()) as string);
  edited.ui = { theme: "GitHub" }; // Gemini CLI writes its settings too
  writeFileSync(settings(), JSON.stringify(edited, null, 2));
  await setup("gemini", "--remove");
  expect(JSON.parse(read(settings()) as string)).toEqual({ ...JSON.parse(SETTINGS), ui: { theme: "GitHub" } });
});

test("in a HOME that had nothing, --remove leaves nothing; the launcher stays while another agent uses it", async () => {
  await setup("gemini");
  await setup("gemini", "--remove");
  expect(readdirSync(home)).toEqual([]);

  await setup("gemini");
  await setup("claude-code");
  await setup("claude-code", "--remove");
  expect(existsSync(join(home, ".local", "bin", "vigil"))).toBe(true); // Gemini's hooks still run it
  await setup("gemini", "--remove");
  expect(existsSync(join(home, ".local", "bin", "vigil"))).toBe(false);
});

test("doctor names what Gemini CLI lacks, and says when it is set up", async () => {
  const doctor = async () =>
    (await execa(process.execPath, [BIN, "--home", vigilHome, "doctor"], { env, reject: false })).stdout;
  mkdirSync(join(home, ".gemini"));
  expect(await doctor()).toMatch(/FIX\s+Gemini CLI lacks Vigil's session-start hook, prompt hook/);
  await setup("gemini");
  const after = await doctor();
  expect(after).toMatch(/ok\s+Gemini CLI hooks and MCP server in/);
  expect(after).toMatch(/ok\s+gemini's hooks run /);
});

test("opencode: setup writes the plugin, a second run changes nothing, doctor checks it, --remove deletes it", async () => {
  const plugin = join(home, ".config", "opencode", "plugin", "vigil.js");
  const doctor = async () =>
    (await execa(process.execPath, [BIN, "--home", vigilHome, "doctor"], { env, reject: false })).stdout;
  mkdirSync(join(home, ".config", "opencode"), { recursive: true });
  expect(await doctor()).toMatch(/FIX\s+OpenCode lacks Vigil's plugin/);
  expect((await setup("opencode", "--dry-run")).stdout).toContain(`create ${plugin}`);
  expect(existsSync(plugin)).toBe(false);
  await setup("opencode");
  expect(read(plugin)).toContain(
    `const HOOK = ${JSON.stringify([join(home, ".local", "bin", "vigil"), "--home", vigilHome, "hook", "opencode"])};`,
  );
  expect((await setup("opencode")).stdout).toContain("opencode: already set up; nothing changed");
  expect(await doctor()).toMatch(/ok\s+OpenCode plugin \S+ runs /);
  await setup("opencode", "--remove");
  expect(existsSync(plugin)).toBe(false);
  expect(readdirSync(join(home, ".config", "opencode"))).toEqual([]);
});
