/**
 * `vigil doctor` for the agents: is Claude Code set up (its hooks and MCP entry present), is Gemini
 * CLI set up, is Copilot CLI set up, is Codex set up, and are Codex's hooks trusted — an untrusted Codex hook silently does not run, so a
 * session would never bind itself and an open one would never take its wakes. Once one is set up:
 * does every hook's program exist (outside npm's temporary folders). Its CLI: agent-clis.ts; `vigil`
 * in each login shell: shell-path.ts.
 * Design: docs/design.md §6, §7.
 */
import { existsSync } from "node:fs";
import { isExecutable, isTemporaryPathEntry, vigilCommand } from "../base/how-to-run.js";
import { claudePaths } from "./claude-code.js";
import { CODEX_HOOKS, codexHookHash, codexPaths } from "./codex.js";
import { COPILOT_HOOKS, copilotPaths } from "./copilot.js";
import { GEMINI_HOOKS, geminiPaths } from "./gemini.js";
import type { Finding } from "./install.js";
import { readText } from "./managed-files.js";
import { isOpencodeSetUp, opencodePaths } from "./opencode.js";

export const setupCommand = (agent: string): string => `${vigilCommand()} setup ${agent}`;
const SETUP = setupCommand;

export function claudeFindings(env: NodeJS.ProcessEnv = process.env): Finding[] {
  const paths = claudePaths(env);
  if (!existsSync(paths.configDir)) return [];
  const settings = readText(paths.settings) ?? "";
  const state = readText(paths.state) ?? "";
  const hooks = ["session-start", "prompt", "stop", "rewake"].filter(
    (name) => !settings.includes(` hook claude ${name}"`),
  );
  const findings: Finding[] = [
    hooks.length === 0
      ? { ok: true, what: `Claude Code hooks in ${paths.settings}` }
      : {
          ok: false,
          what: `Claude Code lacks Vigil's hooks (${hooks.join(", ")}) in ${paths.settings}`,
          fix: SETUP("claude-code"),
        },
  ];
  let server = false;
  try {
    server = Boolean((JSON.parse(state) as { mcpServers?: Record<string, unknown> }).mcpServers?.vigil);
  } catch {
    server = false;
  }
  findings.push(
    server
      ? { ok: true, what: `Claude Code MCP server "vigil" in ${paths.state}` }
      : { ok: false, what: `no "vigil" MCP server in ${paths.state}`, fix: SETUP("claude-code") },
  );
  return findings;
}

/** Gemini CLI, once it is installed (its folder exists): are Vigil's hooks and MCP entry in its settings? */
export function geminiFindings(env: NodeJS.ProcessEnv = process.env): Finding[] {
  const paths = geminiPaths(env);
  if (!existsSync(paths.configDir)) return [];
  const text = readText(paths.settings);
  const missing = Object.values(GEMINI_HOOKS)
    .map((hook) => hook.name)
    .filter((name) => !(text ?? "").includes(` hook gemini ${name}"`));
  let server = false;
  try {
    server = Boolean((JSON.parse(text ?? "") as { mcpServers?: Record<string, unknown> }).mcpServers?.vigil);
  } catch {
    server = false;
  }
  if (missing.length === 0 && server)
    return [{ ok: true, what: `Gemini CLI hooks and MCP server in ${paths.settings}` }];
  return [
    {
      ok: false,
      what: `Gemini CLI lacks Vigil's ${[...missing.map((name) => `${name} hook`), ...(server ? [] : ["MCP server"])].join(", ")} in ${paths.settings}`,
      fix: SETUP("gemini"),
    },
  ];
}

/** OpenCode, once it is installed (its config folder exists): is Vigil's plugin there, and does the program it runs exist? */
export function opencodeFindings(env: NodeJS.ProcessEnv = process.env): Finding[] {
  const paths = opencodePaths(env);
  if (!existsSync(paths.configDir)) return [];
  const text = readText(paths.plugin);
  if (!isOpencodeSetUp(text))
    return [{ ok: false, what: `OpenCode lacks Vigil's plugin (${paths.plugin})`, fix: SETUP("opencode") }];
  const program = /^const HOOK = (\[.*\]);$/m.exec(text ?? "")?.[1];
  const launcher = program ? (JSON.parse(program) as string[])[0] : undefined;
  return launcher && existsSync(launcher) && isExecutable(launcher)
    ? [{ ok: true, what: `OpenCode plugin ${paths.plugin} runs ${launcher}` }]
    : [
        {
          ok: false,
          what: `OpenCode plugin ${paths.plugin} runs ${launcher ?? "nothing"}, which does not exist or is not executable`,
          fix: SETUP("opencode"),
        },
      ];
}

/** GitHub Copilot CLI, once it has run (its folder exists): Vigil's four hooks in its user hook file, its MCP entry? */
export function copilotFindings(env: NodeJS.ProcessEnv = process.env): Finding[] {
  const paths = copilotPaths(env);
  if (!existsSync(paths.home)) return [];
  const text = readText(paths.hooks) ?? "";
  const missing = Object.values(COPILOT_HOOKS)
    .map((hook) => `${hook.name} hook`)
    .filter((name) => !text.includes(` hook copilot ${name.slice(0, -5)}"`));
  let server = false;
  try {
    server = Boolean(
      (JSON.parse(readText(paths.mcp) ?? "") as { mcpServers?: Record<string, unknown> }).mcpServers?.vigil,
    );
  } catch {
    server = false;
  }
  if (!server) missing.push(`MCP server (${paths.mcp})`);
  return missing.length === 0
    ? [{ ok: true, what: `Copilot CLI hooks in ${paths.hooks} and MCP server in ${paths.mcp}` }]
    : [
        {
          ok: false,
          what: `Copilot CLI lacks Vigil's ${missing.join(", ")} (hooks: ${paths.hooks})`,
          fix: SETUP("copilot"),
        },
      ];
}

/** The hook commands and trust entries of Vigil's block, as Codex reads them. */
function parseBlock(text: string): { commands: Map<string, string>; trusted: Map<string, string> } {
  const commands = new Map<string, string>();
  const trusted = new Map<string, string>();
  let event: string | null = null;
  let key: string | null = null;
  for (const line of text.split("\n")) {
    const group = /^\[\[hooks\.(\w+)\.hooks\]\]$/.exec(line.trim());
    if (group) event = group[1] as string;
    const command = /^command = (".*")$/.exec(line.trim());
    if (command && event) commands.set(event, JSON.parse(command[1] as string) as string);
    const state = /^\[hooks\.state\.(".*")\]$/.exec(line.trim());
    if (state) key = JSON.parse(state[1] as string) as string;
    const hash = /^trusted_hash = (".*")$/.exec(line.trim());
    if (hash && key) trusted.set(key, JSON.parse(hash[1] as string) as string);
    if (/^\[[^[]/.test(line.trim()) && !state) key = null;
  }
  return { commands, trusted };
}

export function codexFindings(env: NodeJS.ProcessEnv = process.env): Finding[] {
  const paths = codexPaths(env);
  if (!existsSync(paths.home)) return [];
  const text = readText(paths.config) ?? "";
  if (!text.includes("# >>> vigil")) {
    return [{ ok: false, what: `Codex is not set up for Vigil (${paths.config})`, fix: SETUP("codex") }];
  }
  const { commands, trusted } = parseBlock(text);
  const untrusted = Object.entries(CODEX_HOOKS).filter(([event, hook]) => {
    const command = commands.get(event);
    if (!command) return true;
    const want = codexHookHash(hook.snake, command);
    return ![...trusted.entries()].some(([key, hash]) => key.includes(`:${hook.snake}:`) && hash === want);
  });
  return [
    untrusted.length === 0
      ? { ok: true, what: `Codex MCP server and trusted hooks in ${paths.config}` }
      : {
          ok: false,
          what: `Codex hooks not trusted (${untrusted.map(([event]) => event).join(", ")}): Codex silently skips them`,
          fix: `${SETUP("codex")} (or trust them in Codex's "Hooks need review" screen)`,
        },
  ];
}

/** The program a hook command runs: its first word, unquoted (setup quotes it the POSIX way). */
export function programOf(command: string): string {
  const quoted = /^'((?:[^']|'\\'')*)'/.exec(command);
  if (quoted) return (quoted[1] as string).replaceAll("'\\''", "'");
  return command.split(/\s+/)[0] ?? "";
}

/** The commands of Vigil's hooks, per agent that is set up. */
function vigilHookCommands(env: NodeJS.ProcessEnv): { agent: string; commands: string[] }[] {
  const found: { agent: string; commands: string[] }[] = [];
  const settings = readText(claudePaths(env).settings);
  if (settings) {
    try {
      const hooks = (JSON.parse(settings) as { hooks?: Record<string, { hooks?: { command?: string }[] }[]> }).hooks;
      const commands = Object.values(hooks ?? {})
        .flatMap((groups) => (Array.isArray(groups) ? groups : []).flatMap((group) => group.hooks ?? []))
        .map((hook) => hook.command ?? "")
        .filter((command) => / hook claude /.test(command));
      if (commands.length > 0) found.push({ agent: "claude-code", commands });
    } catch {
      // claudeFindings says the file is unreadable as hooks
    }
  }
  const gemini = readText(geminiPaths(env).settings);
  if (gemini) {
    try {
      const hooks = (JSON.parse(gemini) as { hooks?: Record<string, { hooks?: { command?: string }[] }[]> }).hooks;
      const commands = Object.values(hooks ?? {})
        .flatMap((groups) => (Array.isArray(groups) ? groups : []).flatMap((group) => group.hooks ?? []))
        .map((hook) => hook.command ?? "")
        .filter((command) => / hook gemini /.test(command));
      if (commands.length > 0) found.push({ agent: "gemini", commands });
    } catch {
      // geminiFindings says the file is unreadable as hooks
    }
  }
  const copilot = readText(copilotPaths(env).hooks);
  if (copilot) {
    try {
      const hooks = (JSON.parse(copilot) as { hooks?: Record<string, { bash?: string }[]> }).hooks;
      const commands = Object.values(hooks ?? {})
        .flatMap((entries) => (Array.isArray(entries) ? entries : []))
        .map((hook) => hook.bash ?? "")
        .filter((command) => / hook copilot /.test(command));
      if (commands.length > 0) found.push({ agent: "copilot", commands });
    } catch {
      // copilotFindings says its hooks are missing
    }
  }
  const config = readText(codexPaths(env).config) ?? "";
  if (config.includes("# >>> vigil"))
    found.push({ agent: "codex", commands: [...parseBlock(config).commands.values()] });
  return found;
}

/**
 * Once an agent is set up: each hook's program exists, is executable and is not in npm's temporary
 * folders. (Whether `vigil` resolves in each login shell: shell-path.ts.)
 */
export function hookProgramFindings(env: NodeJS.ProcessEnv = process.env): Finding[] {
  return vigilHookCommands(env).map(({ agent, commands }): Finding => {
    const programs = [...new Set(commands.map(programOf))];
    const broken = programs.filter((program) => !existsSync(program) || !isExecutable(program));
    const temporary = programs.filter((program) => isTemporaryPathEntry(program, env));
    if (broken.length > 0)
      return {
        ok: false,
        what: `${agent}'s hooks run ${broken.join(", ")}, which does not exist or is not executable`,
        fix: setupCommand(agent),
      };
    if (temporary.length > 0)
      return {
        ok: false,
        what: `${agent}'s hooks run ${temporary.join(", ")}, inside npm's temporary folders (npm may delete it)`,
        fix: setupCommand(agent),
      };
    return { ok: true, what: `${agent}'s hooks run ${programs.join(", ")}` };
  });
}
