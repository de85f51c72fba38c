/**
 * `vigil doctor` for the agents: is Claude Code set up (its hooks and MCP entry present), is Codex
 * set up, and are Codex's hooks trusted — an untrusted Codex hook silently does not run, so a
 * session would never bind itself and an open one would never take its wakes.
 * Design: docs/design.md §6, §7.
 */
import { existsSync } from "node:fs";
import { claudePaths } from "./claude-code.js";
import { CODEX_HOOKS, codexHookHash, codexPaths } from "./codex.js";
import type { Finding } from "./install.js";
import { readText } from "./managed-files.js";

const SETUP = (agent: string) => `vigil setup ${agent}`;

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
