/**
 * `vigil setup claude-code|codex` on real files in a temporary HOME: what it adds, that a second
 * run changes nothing, that --dry-run writes nothing, and that --remove restores the user's files
 * byte for byte (or, when the user changed them since, takes out only Vigil's part).
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { parse } from "smol-toml";
import { describe, expect, test } from "vitest";
import { BIN } from "../helpers/daemon.js";
import { readIfThere, useSetupHome } from "../helpers/setup-home.js";

let home: string;
let vigilHome: string;
let env: Record<string, string>;

useSetupHome("vigil-setup-", (made) => {
  ({ home, vigilHome, env } = made);
});

const setup = (...args: string[]) => execa(process.execPath, [BIN, "--home", vigilHome, "setup", ...args], { env });
const read = readIfThere;

describe("claude-code", () => {
  const settings = () => join(home, ".claude", "settings.json");
  const state = () => join(home, ".claude.json");
  const SETTINGS = `{\n    "theme": "dark",\n    "hooks": {\n        "Stop": [\n            {\n                "hooks": [\n                    { "type": "command", "command": "notify-send done" }\n                ]\n            }\n        ]\n    }\n}`;
  const STATE = `{"numStartups":3,"mcpServers":{"github":{"type":"stdio","command":"gh-mcp","args":[]}}}\n`;

  test("adds the MCP entry and the hooks, keeps everything else, and a second run changes nothing", async () => {
    mkdirSync(join(home, ".claude"));
    writeFileSync(settings(), SETTINGS);
    writeFileSync(state(), STATE);
    await setup("claude-code");
    const after = JSON.parse(read(settings()) as string);
    expect(after.theme).toBe("dark");
    expect(after.hooks.Stop[0].hooks[0].command).toBe("notify-send done");
    const ours = (event: string) =>
      after.hooks[event].flatMap((g: any) => g.hooks).filter((h: any) => / hook claude /.test(h.command));
    expect(ours("SessionStart")[0].command).toMatch(/\.local\/bin\/vigil --home \S+ hook claude session-start$/);
    expect(ours("Stop").map((h: any) => h.command.split(" ").at(-1))).toEqual(["stop", "rewake"]);
    expect(ours("Stop")[1]).toMatchObject({ async: true, asyncRewake: true });
    expect(ours("UserPromptSubmit")).toHaveLength(1);
    const mcp = JSON.parse(read(state()) as string);
    expect(mcp.numStartups).toBe(3);
    expect(mcp.mcpServers.github.command).toBe("gh-mcp");
    expect(mcp.mcpServers.vigil).toMatchObject({ type: "stdio", args: ["--home", vigilHome, "mcp"] });
    expect(read(join(home, ".local", "bin", "vigil"))).toContain("bin/vigil.js");
    // Indentation kept (four spaces).
    expect(read(settings())).toMatch(/^\{\n {4}"theme"/);

    const files = [settings(), state(), join(home, ".local", "bin", "vigil")].map(read);
    const again = await setup("claude-code");
    expect(again.stdout).toContain("already set up; nothing changed");
    expect([settings(), state(), join(home, ".local", "bin", "vigil")].map(read)).toEqual(files);
  });

  test("--dry-run prints the change and writes nothing", async () => {
    const { stdout } = await setup("claude-code", "--dry-run");
    expect(stdout).toContain(`create ${settings()}`);
    expect(stdout).toContain("hook claude session-start");
    expect(existsSync(settings())).toBe(false);
    expect(existsSync(state())).toBe(false);
  });

  test("--remove restores the files byte for byte, or takes out only Vigil's part after the user's edits", async () => {
    mkdirSync(join(home, ".claude"));
    writeFileSync(settings(), SETTINGS);
    writeFileSync(state(), STATE);
    await setup("claude-code");
    await setup("claude-code", "--remove");
    expect(read(settings())).toBe(SETTINGS);
    expect(read(state())).toBe(STATE);
    expect(existsSync(join(home, ".local", "bin", "vigil"))).toBe(false);

    await setup("claude-code");
    const edited = JSON.parse(read(state()) as string);
    edited.numStartups = 4; // Claude Code rewrites this file all the time
    writeFileSync(state(), JSON.stringify(edited));
    await setup("claude-code", "--remove");
    expect(JSON.parse(read(state()) as string)).toEqual({ ...JSON.parse(STATE), numStartups: 4 });
    expect(read(settings())).toBe(SETTINGS);
  });

  test("files that did not exist are gone again after --remove", async () => {
    await setup("claude-code");
    expect(existsSync(settings())).toBe(true);
    await setup("claude-code", "--remove");
    expect(existsSync(settings())).toBe(false);
    expect(existsSync(state())).toBe(false);
    // And the folders setup created for them (~/.claude, ~/.local/bin, ~/.local), being empty again.
    expect(readdirSync(home)).toEqual([]);
  });

  test("--remove keeps a folder setup created when something else wrote into it since", async () => {
    await setup("claude-code");
    writeFileSync(join(home, ".claude", "history.jsonl"), "{}\n");
    await setup("claude-code", "--remove");
    expect(readdirSync(home)).toEqual([".claude"]);
    expect(readdirSync(join(home, ".claude"))).toEqual(["history.jsonl"]);
  });

  test("codex: --remove in a HOME that had nothing leaves nothing", async () => {
    await setup("codex");
    expect(existsSync(join(home, ".codex", "config.toml"))).toBe(true);
    await setup("codex", "--remove");
    expect(readdirSync(home)).toEqual([]);
  });

  test("a settings file that is not JSON is refused, naming it, and nothing is written", async () => {
    mkdirSync(join(home, ".claude"));
    writeFileSync(settings(), "{oops");
    const result = await execa(process.execPath, [BIN, "--home", vigilHome, "setup", "claude-code"], {
      env,
      reject: false,
    });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`${settings()}: Expected JSON, got malformed JSON`);
    expect(read(settings())).toBe("{oops");
    expect(existsSync(state())).toBe(false);
  });
});

describe("codex", () => {
  const config = () => join(home, ".codex", "config.toml");
  const CONFIG = 'model = "o4"\n\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "say done"\n';

  test("appends one marked block with the MCP entry, the hooks and their trust; --remove restores the bytes", async () => {
    mkdirSync(join(home, ".codex"));
    writeFileSync(config(), CONFIG);
    await setup("codex");
    const text = read(config()) as string;
    expect(text.startsWith(CONFIG)).toBe(true);
    expect(text).toContain("[mcp_servers.vigil]");
    expect(text).toContain(`args = ["--home", "${vigilHome}", "mcp"]`);
    // The user's Stop hook is group 0 of this file, so Vigil's is group 1.
    expect(text).toContain(`[hooks.state."${config()}:stop:1:0"]`);
    expect(text).toContain(`[hooks.state."${config()}:session_start:0:0"]`);
    expect(text).toMatch(/trusted_hash = "sha256:[0-9a-f]{64}"/);
    // The sandbox rules: only the `vigil` verbs that run nothing may leave Codex's sandbox, said so.
    const rules = join(home, ".codex", "rules", "vigil.rules");
    expect(read(rules)).toContain(
      'prefix_rule(pattern = ["vigil", ["ls", "show", "inbox", "status", "events", "checks", "wait", "watch"]], decision = "allow")',
    );
    const again = await setup("codex");
    expect(again.stdout).toContain(`${rules}: Codex's sandbox forbids connecting to the Vigil daemon's socket`);
    expect(read(config())).toBe(text);
    await setup("codex", "--remove");
    expect(read(config())).toBe(CONFIG);
    expect(existsSync(join(home, ".codex", "rules"))).toBe(false);
  });
});

describe("codex: the tables Codex writes between Vigil's markers stay Codex's (issue 28, item 9)", () => {
  const config = () => join(home, ".codex", "config.toml");
  const USER = 'model = "o4"\n';
  // What Codex 0.169 appends at the end of the document, so before Vigil's trailing marker.
  const CODEX_TABLES = [
    "",
    "[tui]",
    "show_tooltips = false",
    "",
    "[tui.model_availability_nux]",
    '"gpt-5.5" = 1',
    "",
    '[projects."/work/project"]',
    'trust_level = "trusted"',
  ].join("\n");

  test("they survive setup --remove, and a second setup is a no-op (also for --dry-run)", async () => {
    mkdirSync(join(home, ".codex"));
    writeFileSync(config(), USER);
    await setup("codex");
    const written = read(config()) as string;
    const withCodex = written.replace("# <<< vigil <<<", `${CODEX_TABLES.slice(1)}\n# <<< vigil <<<`);
    expect(withCodex).not.toBe(written);
    writeFileSync(config(), withCodex);

    expect((await setup("codex", "--dry-run")).stdout).toContain("codex: nothing to change");
    await setup("codex");
    expect(read(config())).toBe(withCodex);

    await setup("codex", "--remove");
    const left = read(config()) as string;
    expect(parse(left)).toEqual(parse(`${USER}${CODEX_TABLES}\n`));
    expect(left).not.toContain("vigil");
    // Set up again over them: Vigil's block goes after Codex's tables, which are still there.
    await setup("codex");
    const again = parse(read(config()) as string) as Record<string, any>;
    expect(again.projects["/work/project"].trust_level).toBe("trusted");
    expect(again.tui.model_availability_nux["gpt-5.5"]).toBe(1);
    expect(again.mcp_servers).toHaveProperty("vigil");
  });
});

describe("vigil doctor", () => {
  const doctor = async () =>
    (await execa(process.execPath, [BIN, "--home", vigilHome, "doctor"], { env, reject: false })).stdout;

  test("says when Codex's hooks are not trusted (Codex would silently skip them), and when they are", async () => {
    mkdirSync(join(home, ".codex"));
    writeFileSync(join(home, ".codex", "config.toml"), 'model = "o4"\n');
    expect(await doctor()).toContain("FIX  Codex is not set up for Vigil");
    await setup("codex");
    expect(await doctor()).toMatch(/ok\s+Codex MCP server and trusted hooks/);
    const config = join(home, ".codex", "config.toml");
    writeFileSync(config, (read(config) as string).replace(/sha256:[0-9a-f]{8}/, "sha256:00000000"));
    expect(await doctor()).toMatch(/FIX\s+Codex hooks not trusted \(SessionStart\)/);
  });

  test("names what Claude Code lacks", async () => {
    mkdirSync(join(home, ".claude"));
    expect(await doctor()).toContain("Claude Code lacks Vigil's hooks");
    await setup("claude-code");
    const after = await doctor();
    expect(after).toMatch(/ok\s+Claude Code hooks in/);
    expect(after).toMatch(/ok\s+Claude Code MCP server "vigil"/);
  });
});

test("a hook fed garbage says so on stderr and never fails the agent", async () => {
  for (const input of ["not json", '{"no_session": true}', ""]) {
    const result = await execa(process.execPath, [BIN, "--home", vigilHome, "hook", "claude", "stop"], {
      env,
      input,
      reject: false,
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^vigil hook claude stop: Expected /);
  }
});

describe("setup keeps the user's files sound", () => {
  const settings = () => join(home, ".claude", "settings.json");

  test("a symlinked settings file stays a link, to the same file, after setup and --remove", async () => {
    mkdirSync(join(home, "dotfiles"));
    mkdirSync(join(home, ".claude"));
    const real = join(home, "dotfiles", "claude-settings.json");
    writeFileSync(real, '{\n  "theme": "light"\n}\n');
    symlinkSync(real, settings());
    await setup("claude-code");
    expect(lstatSync(settings()).isSymbolicLink()).toBe(true);
    expect(read(real)).toContain("hook claude session-start");
    await setup("claude-code", "--remove");
    expect(lstatSync(settings()).isSymbolicLink()).toBe(true);
    expect(read(real)).toBe('{\n  "theme": "light"\n}\n');
  });

  test("set up again after the user's edits, --remove still takes out every Vigil hook", async () => {
    await setup("claude-code");
    const edited = JSON.parse(read(settings()) as string);
    edited.theme = "dark";
    writeFileSync(settings(), JSON.stringify(edited, null, 2));
    // Another Vigil home: every hook command changes.
    await execa(process.execPath, [BIN, "--home", `${vigilHome}-2`, "setup", "claude-code"], { env });
    await setup("claude-code", "--remove");
    const text = read(settings()) as string;
    expect(text).not.toContain("hook claude");
    expect(JSON.parse(text).theme).toBe("dark");
    const other = JSON.parse(readFileSync(join(`${vigilHome}-2`, "daemon.json"), "utf8"));
    process.kill(other.pid, "SIGTERM");
  });

  test("a Codex config that already names [mcp_servers.vigil] is refused, naming it, and left as it was", async () => {
    mkdirSync(join(home, ".codex"));
    const config = join(home, ".codex", "config.toml");
    const text = '[mcp_servers.vigil]\ncommand = "node"\nargs = ["/old/bin/vigil.js", "mcp"]\n';
    writeFileSync(config, text);
    const result = await execa(process.execPath, [BIN, "--home", vigilHome, "setup", "codex"], { env, reject: false });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("Expected no [mcp_servers.vigil] outside Vigil's block");
    expect(read(config)).toBe(text);
  });

  describe("a Codex config.toml stays one Codex can load (issue 25, finding 13)", () => {
    const config = () => join(home, ".codex", "config.toml");
    const USER = 'model = "o4"\n';
    const TRUST = /\[hooks\.state\.("[^"\n]*")\]\ntrusted_hash = ("sha256:[0-9a-f]{64}")\n/g;
    const trySetup = () =>
      execa(process.execPath, [BIN, "--home", vigilHome, "setup", "codex"], { env, reject: false });

    /**
     * Vigil's block as setup writes it into USER, and its trust tables as Codex records them itself
     * (outside the block, with `enabled`): what a config holds after Codex's "Trust all" and
     * `setup --remove`, or after Codex recorded them before setup ran.
     */
    async function codexRecordedTrust(): Promise<{ block: string; recorded: string }> {
      mkdirSync(join(home, ".codex"), { recursive: true });
      writeFileSync(config(), USER);
      await setup("codex");
      const block = (read(config()) as string).slice(`${USER}\n`.length);
      const tables = [...block.matchAll(TRUST)];
      expect(tables).toHaveLength(3);
      await setup("codex", "--remove");
      expect(read(config())).toBe(USER);
      const recorded = tables.map(
        ([, key, hash]) => `\n[hooks.state.${key}]\ntrusted_hash = ${hash}\nenabled = true\n`,
      );
      return { block, recorded: `${USER}${recorded.join("")}` };
    }

    test("trust Codex recorded outside the block for Vigil's hooks: merged, each table once, valid TOML", async () => {
      const { recorded } = await codexRecordedTrust();
      writeFileSync(config(), recorded);
      const result = await trySetup();
      expect(result.exitCode, String(result.stderr)).toBe(0);
      const text = read(config()) as string;
      expect(text.startsWith(recorded)).toBe(true);
      const parsed = parse(text) as { hooks: { state: Record<string, { trusted_hash: string }> }; mcp_servers: object };
      expect(Object.keys(parsed.hooks.state)).toHaveLength(3);
      expect(parsed.mcp_servers).toHaveProperty("vigil");
      // A second run changes nothing; --remove gives back the file as it was.
      await setup("codex");
      expect(read(config())).toBe(text);
      await setup("codex", "--remove");
      expect(read(config())).toBe(recorded);
    });

    test("a file an earlier setup broke (Codex's tables, then the block repeating them) is mended", async () => {
      const { block, recorded } = await codexRecordedTrust();
      const broken = `${recorded}\n${block}`;
      expect(() => parse(broken)).toThrow(/redefine/);
      writeFileSync(config(), broken);
      const result = await trySetup();
      expect(result.exitCode, String(result.stderr)).toBe(0);
      const text = read(config()) as string;
      expect(text.startsWith(recorded)).toBe(true);
      expect(Object.keys((parse(text) as { hooks: { state: object } }).hooks.state)).toHaveLength(3);
    });

    test("trust Codex recorded for another hook in that place: refused naming the file and the table, file unchanged", async () => {
      const recorded = (await codexRecordedTrust()).recorded.replace(/sha256:[0-9a-f]{8}/, "sha256:00000000");
      writeFileSync(config(), recorded);
      const result = await trySetup();
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toContain(`vigil: ${config()}: Expected no trust entry [hooks.state."${config()}:`);
      expect(result.stderr).toContain("remove that table and run setup again");
      expect(read(config())).toBe(recorded);
    });

    test.each([
      [
        "hooks written inline (no table can be added to them)",
        `${USER}[hooks]\nStop = [{ hooks = [{ type = "command", command = "say done" }] }]\n`,
        "valid TOML with Vigil's block added",
      ],
      [
        "a file Codex cannot load already",
        `${USER}[profiles.fast]\nmodel = "o4"\n[profiles.fast]\n`,
        "valid TOML outside Vigil's block",
      ],
      ["a value without its closing quote", `${USER}approval_policy = "never\n`, "valid TOML outside Vigil's block"],
    ])("%s: refused naming the file and the line, file unchanged", async (_what, text, expected) => {
      mkdirSync(join(home, ".codex"));
      writeFileSync(config(), text);
      const result = await trySetup();
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toContain(`vigil: ${config()}: Expected ${expected}, got invalid TOML (`);
      expect(result.stderr).toMatch(
        / at line \d+, column \d+\); the file was not changed(\. Hooks .* written inline .*)?$/,
      );
      expect(read(config())).toBe(text);
    });
  });

  test("a hook called wrongly still exits 0: exit 2 would block the agent", async () => {
    const result = await execa(process.execPath, [BIN, "hook", "claude", "stop", "--no-such-flag"], {
      env,
      input: "{}",
      reject: false,
    });
    expect(result.exitCode).toBe(0);
  });
});
