/**
 * The "Use with Claude Code" and "Use with Codex" commands of docs/agents.md (the guide the README
 * sends you to) as a newcomer types them in a checkout: real
 * npm and npx, a fresh HOME (a new account's, from /etc/skel), in this checkout. Then what the agent
 * does in its shell tool: a login shell (`bash -lc`) looks `vigil` up by name and arms a wait.
 *
 * Not run literally: the README's `npm install` (this checkout is built before the integration tests;
 * a second install would rebuild dist/ under the daemons of the other tests and fetch a browser for
 * puppeteer from outside npm). The `npx vigil setup …` lines are run exactly as
 * the guide prints them, with npm's default cache in that HOME (~/.npm, where npx keeps `_npx`).
 * VIGIL_PORT=0 keeps the daemon setup starts off the port another Vigil on this machine may hold.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ROOT, waitFor } from "../helpers/daemon.js";

let root: string;
let home: string;
let work: string;

/** What a new account's login shell adds to PATH on Debian and Ubuntu (/etc/skel/.profile). */
const SKEL_PROFILE = 'if [ -d "$HOME/.local/bin" ] ; then\n    PATH="$HOME/.local/bin:$PATH"\nfi\n';

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "vigil-readme-"));
  home = join(root, "home");
  work = join(root, "project");
  mkdirSync(work, { recursive: true });
  if (existsSync("/etc/skel/.profile")) cpSync("/etc/skel", home, { recursive: true });
  else {
    mkdirSync(home);
    writeFileSync(join(home, ".profile"), SKEL_PROFILE);
  }
});

afterAll(async () => {
  const info = join(home, ".vigil", "daemon.json");
  try {
    process.kill(JSON.parse(readFileSync(info, "utf8")).pid, "SIGTERM");
    await waitFor(() => !existsSync(info), { what: "the daemon setup started to stop" });
  } catch {
    // none started
  }
  rmSync(root, { recursive: true, force: true });
});

/** The user's terminal: a fresh HOME, node and npm on PATH, nothing of this test run's environment. */
const userEnv = () => ({
  HOME: home,
  USER: process.env.USER ?? "user",
  SHELL: "/bin/bash",
  LANG: "C.UTF-8",
  PATH: [dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].join(":"),
  VIGIL_PORT: "0",
  npm_config_update_notifier: "false",
});

/** The `npx vigil setup …` lines of docs/agents.md's code block under `heading`, comments off. */
function guideSetupLines(heading: string): string[] {
  const guide = readFileSync(join(ROOT, "docs", "agents.md"), "utf8");
  const start = guide.indexOf(`\n## ${heading}\n`);
  expect(start, `docs/agents.md has a "## ${heading}" section`).toBeGreaterThan(-1);
  const section = guide.slice(start);
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  return block
    .split("\n")
    .filter((line) => line.startsWith("npx vigil setup "))
    .map((line) => line.replace(/\s+#.*$/, ""));
}

/**
 * The README's quick start: each command with what the README says it prints — the comment after it,
 * or the `# → …` line below it.
 */
function quickStart(): Array<[string, string]> {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const start = readme.indexOf("\n## Quick start (60 seconds)\n");
  expect(start, 'README.md has a "## Quick start (60 seconds)" section').toBeGreaterThan(-1);
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(start))?.[1] ?? "";
  const steps: Array<[string, string]> = [];
  for (const line of block.split("\n").filter((text) => text.trim())) {
    const said = /^# (→ .*)$/.exec(line)?.[1];
    if (said !== undefined && steps.length > 0) (steps.at(-1) as [string, string])[1] = said;
    else {
      const [command, comment] = line.split(/\s+# /, 2) as [string, string | undefined];
      steps.push([command.trim(), comment?.trim() ?? ""]);
    }
  }
  return steps;
}

/** The agent's shell tool: a login shell in the user's project folder. */
const agentShell = (script: string) =>
  execa("bash", ["-lc", script], {
    cwd: work,
    env: { HOME: home, USER: process.env.USER ?? "user", SHELL: "/bin/bash", LANG: "C.UTF-8", PATH: "/usr/bin:/bin" },
    extendEnv: false,
    reject: false,
    timeout: 30_000,
  });

test("the agents guide's npx vigil setup lines leave `vigil` callable in the agent's login shell, and a wait armed there wakes", async () => {
  const lines = [...guideSetupLines("Use with Claude Code"), ...guideSetupLines("Use with Codex")];
  expect(lines).toEqual(["npx vigil setup claude-code", "npx vigil setup codex"]);
  for (const line of lines) {
    const run = await execa("bash", ["-c", line], {
      cwd: ROOT,
      env: userEnv(),
      extendEnv: false,
      reject: false,
      timeout: 120_000,
    });
    expect(run.exitCode, `${line}\n${run.stdout}\n${run.stderr}`).toBe(0);
  }

  // Every hook names a program that exists, outside npm's cache (npx's `_npx` folder is temporary).
  const settings = JSON.parse(readFileSync(join(home, ".claude", "settings.json"), "utf8"));
  const programs = Object.values(settings.hooks as Record<string, { hooks: { command: string }[] }[]>)
    .flatMap((groups) => groups.flatMap((group) => group.hooks))
    .map((hook) => hook.command.split(" ")[0] as string);
  const codex = readFileSync(join(home, ".codex", "config.toml"), "utf8");
  programs.push(...[...codex.matchAll(/^command = "([^" ]+)/gm)].map((m) => m[1] as string));
  expect(programs.length).toBeGreaterThan(4);
  for (const program of programs) {
    expect(program).toBe(join(home, ".local", "bin", "vigil"));
    expect(existsSync(program), program).toBe(true);
  }

  const found = await agentShell("command -v vigil");
  expect(found.stdout.trim(), found.stderr).toBe(join(home, ".local", "bin", "vigil"));

  // The README's quick start, line by line, in that shell: what it prints is what the README says.
  const start = quickStart();
  expect(start.map(([command]) => command)).toEqual([
    'vigil wait --until 5 --description "readiness marker" -- test -f ready.flag',
    "touch ready.flag",
    "vigil ls",
    "vigil inbox",
  ]);
  const [[wait, armedSays], [touch], [ls, lsSays]] = start as [string, string][];
  const armed = await agentShell(wait);
  expect(armed.exitCode, armed.stderr).toBe(0);
  expect(`→ ${armed.stdout.trim()}`).toBe(armedSays);
  expect((await agentShell(touch)).exitCode).toBe(0);
  await waitFor(async () => (await agentShell(ls)).stdout.trim() === lsSays, {
    what: `vigil ls to print the README's line: ${lsSays}`,
    timeoutMs: 30_000,
    everyMs: 500,
  });
  const inbox = await agentShell(start[3]?.[0] as string);
  expect(inbox.exitCode, inbox.stderr).toBe(0);
  expect(inbox.stdout).toContain("readiness marker");

  const doctor = (await agentShell("vigil doctor")).stdout;
  expect(doctor).toContain(`ok   bash's login shell finds vigil: ${join(home, ".local", "bin", "vigil")}`);
  expect(doctor).toMatch(/ok {3}claude-code's hooks run \S+\/\.local\/bin\/vigil\n/);
  expect(doctor).toMatch(/ok {3}codex's hooks run \S+\/\.local\/bin\/vigil\n/);
});

test("a message that says what to run says it the way the user runs Vigil: npx vigil under npx, else the launcher's path when vigil is not on PATH", async () => {
  const none = join(root, "no-daemon");
  const viaNpx = await execa("npx", ["vigil", "--home", none, "ls"], {
    cwd: ROOT,
    env: userEnv(),
    extendEnv: false,
    reject: false,
    timeout: 120_000,
  });
  expect(viaNpx.exitCode).not.toBe(0);
  expect(viaNpx.stderr).toContain(`Start it with: npx vigil --home ${none} serve`);

  // The launcher setup wrote (the test above), from a shell whose PATH does not have ~/.local/bin.
  const launcher = join(home, ".local", "bin", "vigil");
  const direct = await execa(launcher, ["--home", none, "ls"], { env: userEnv(), extendEnv: false, reject: false });
  expect(direct.stderr).toContain(`Start it with: ${launcher} --home ${none} serve`);
});
