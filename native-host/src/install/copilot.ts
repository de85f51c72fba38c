/**
 * `vigil setup copilot`: one hook file in GitHub Copilot CLI's user-level hooks folder
 * (`~/.copilot/hooks/vigil.json`, or under $COPILOT_HOME), which Copilot CLI loads for every
 * session besides a repository's `.github/hooks/*.json`, and the `vigil` MCP server in its
 * `mcp-config.json` (Copilot starts it with COPILOT_AGENT_SESSION_ID, so it binds to the session;
 * everything else in that file stays where it was). Four command hooks: sessionStart binds the
 * Copilot session to a Vigil session of the same id; userPromptSubmitted and agentStop hand pending
 * wakes to the live session (agentStop's block continues it with them); sessionEnd marks it closed.
 * The user's hooks live in their own files and are never read; hooks the user added to this file
 * are kept, and --remove deletes the file only when nothing of theirs is left in it.
 * Design: docs/design.md §6, §7.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { formatJson, parseJsonFile } from "./claude-code.js";
import { quote } from "./launcher.js";
import type { PlannedFile } from "./managed-files.js";

export interface CopilotPaths {
  /** Copilot CLI's config and state folder ($COPILOT_HOME, else ~/.copilot). */
  home: string;
  hooks: string;
  /** Copilot CLI's user MCP servers. */
  mcp: string;
}

export function copilotPaths(env: NodeJS.ProcessEnv = process.env): CopilotPaths {
  const home = env.COPILOT_HOME || join(homedir(), ".copilot");
  return { home, hooks: join(home, "hooks", "vigil.json"), mcp: join(home, "mcp-config.json") };
}

/** Copilot CLI hook event → `vigil hook copilot <name>` (timeouts in seconds, as Copilot reads them). */
export const COPILOT_HOOKS = {
  sessionStart: { name: "session-start", timeoutSec: 30 },
  userPromptSubmitted: { name: "prompt", timeoutSec: 30 },
  agentStop: { name: "stop", timeoutSec: 30 },
  sessionEnd: { name: "session-end", timeoutSec: 30 },
} as const;

const OURS = /(^|\s)hook copilot (session-start|prompt|stop|session-end)$/;

type Json = Record<string, unknown>;
interface HookEntry {
  type?: string;
  bash?: string;
  [key: string]: unknown;
}

export function copilotHookCommand(launcher: string, vigilHome: string | null, name: string): string {
  return [quote(launcher), ...(vigilHome ? ["--home", quote(vigilHome)] : []), "hook", "copilot", name].join(" ");
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const isTable = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const isOurs = (entry: unknown) => isTable(entry) && OURS.test(String((entry as HookEntry).bash ?? ""));

/** The file without Vigil's hooks (an event left empty by that goes too), every other key where it was. */
function withoutOurs(file: Json): Json {
  if (!isTable(file.hooks)) return file;
  const kept: Json = {};
  for (const [event, entries] of Object.entries(file.hooks)) {
    const left = Array.isArray(entries) ? entries.filter((entry) => !isOurs(entry)) : entries;
    if (!Array.isArray(left) || left.length > 0) kept[event] = left;
  }
  const { hooks: _hooks, ...rest } = file;
  return Object.keys(kept).length > 0 ? { ...rest, hooks: kept } : rest;
}

/** Is anything but Vigil's left (and the `version` every hook file carries)? */
const holdsTheUsers = (file: Json) => Object.keys(file).some((key) => key !== "version");

/** The hook file with exactly Vigil's hooks; the same object when they are already there. */
export function copilotHooksWith(file: Json, launcher: string, vigilHome: string | null): Json {
  const desired = Object.entries(COPILOT_HOOKS).map(([event, hook]) => ({
    event,
    entry: { type: "command", bash: copilotHookCommand(launcher, vigilHome, hook.name), timeoutSec: hook.timeoutSec },
  }));
  const hooks = isTable(file.hooks) ? file.hooks : {};
  const ours = Object.entries(hooks).flatMap(([event, entries]) =>
    (Array.isArray(entries) ? entries : []).filter(isOurs).map((entry) => ({ event, entry })),
  );
  const there =
    file.version === 1 &&
    ours.length === desired.length &&
    desired.every((d) => ours.some((o) => o.event === d.event && same(o, d)));
  if (there) return file;
  const base = withoutOurs(file);
  const nextHooks: Json = { ...(isTable(base.hooks) ? base.hooks : {}) };
  for (const { event, entry } of desired) {
    const prior = nextHooks[event];
    nextHooks[event] = [...(Array.isArray(prior) ? prior : prior === undefined ? [] : [prior]), entry];
  }
  return { ...base, version: 1, hooks: nextHooks };
}

/** The file with Vigil's hooks taken out; null (delete it) when nothing of the user's is left. */
export function copilotRemover(text: string): string | null {
  const left = withoutOurs(parseJsonFile("vigil.json", text));
  return holdsTheUsers(left) ? formatJson(left, text) : null;
}

/** mcp-config.json with exactly Vigil's server entry; the same object when it is already there. */
export function copilotMcpWith(config: Json, launcher: string, vigilHome: string | null): Json {
  const server = {
    type: "local",
    command: launcher,
    args: vigilHome ? ["--home", vigilHome, "mcp"] : ["mcp"],
    tools: ["*"],
  };
  const servers = isTable(config.mcpServers) ? config.mcpServers : {};
  if (same(servers.vigil, server)) return config;
  return { ...config, mcpServers: { ...servers, vigil: server } };
}

/** mcp-config.json without Vigil's server (and without `mcpServers` when that was the only one). */
export function copilotMcpRemover(text: string): string | null {
  const config = parseJsonFile("mcp-config.json", text);
  if (!isTable(config.mcpServers)) return text;
  const { vigil: _ours, ...servers } = config.mcpServers;
  const { mcpServers: _all, ...rest } = config;
  return formatJson(Object.keys(servers).length > 0 ? { ...config, mcpServers: servers } : rest, text);
}

export function planCopilot(
  paths: CopilotPaths,
  current: { hooks: string | null; mcp: string | null },
  launcher: string,
  vigilHome: string | null,
): PlannedFile[] {
  const file = parseJsonFile(paths.hooks, current.hooks);
  const next = copilotHooksWith(file, launcher, vigilHome);
  // Unchanged meaning keeps the bytes: a second run writes nothing.
  const after = next === file && current.hooks !== null ? current.hooks : formatJson(next, current.hooks);
  const mcpAfter = (text: string | null) => {
    const config = parseJsonFile(paths.mcp, text);
    const next = copilotMcpWith(config, launcher, vigilHome);
    return next === config && text !== null ? text : formatJson(next, text);
  };
  return [
    { path: paths.hooks, before: current.hooks, after, mode: 0o644, strip: copilotRemover },
    // `copilot mcp add` writes this file too: merged again if it changed meanwhile.
    { path: paths.mcp, before: current.mcp, after: mcpAfter(current.mcp), strip: copilotMcpRemover, remerge: mcpAfter },
  ];
}

/** Does the hook file hold Vigil's hooks? */
export const isCopilotSetUp = (text: string | null) => /hook copilot session-start/.test(text ?? "");
