/**
 * `vigil setup claude-code`: Claude Code's user scope gets Vigil's MCP server entry (in
 * `.claude.json`) and four hooks (in `settings.json`): SessionStart binds the Claude session to a
 * Vigil session of the same id; UserPromptSubmit and Stop hand pending wakes to a live session;
 * Stop also waits in the background for a wake to an idle session (asyncRewake). Everything
 * unrelated in both files is kept as it was.
 * Design: docs/design.md §6, §7.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { ValidationError } from "../base/errors.js";
import { quote } from "./launcher.js";
import type { PlannedFile } from "./managed-files.js";

export interface ClaudePaths {
  configDir: string;
  settings: string;
  /** Where user-scope MCP servers live: `$CLAUDE_CONFIG_DIR/.claude.json`, else `~/.claude.json`. */
  state: string;
}

export function claudePaths(env: NodeJS.ProcessEnv = process.env): ClaudePaths {
  const configDir = env.CLAUDE_CONFIG_DIR || join(homedir(), ".claude");
  return {
    configDir,
    settings: join(configDir, "settings.json"),
    state: env.CLAUDE_CONFIG_DIR ? join(configDir, ".claude.json") : join(homedir(), ".claude.json"),
  };
}

/** Claude Code hook event → `vigil hook claude <name>`. */
export const CLAUDE_HOOKS = {
  SessionStart: { name: "session-start", timeout: 30 },
  UserPromptSubmit: { name: "prompt", timeout: 30 },
  Stop: { name: "stop", timeout: 30 },
  SessionEnd: { name: "session-end", timeout: 30 },
} as const;

/** The background Stop hook that wakes an idle live session when a wake arrives (exit 2). */
export const REWAKE_HOOK = { name: "rewake", timeout: 86_400 } as const;

const OURS = /(^|\s)hook claude (session-start|prompt|stop|session-end|rewake)$/;

type Json = Record<string, unknown>;
interface HookEntry {
  type?: string;
  command?: string;
  [key: string]: unknown;
}
interface HookGroup {
  matcher?: string;
  hooks?: HookEntry[];
  [key: string]: unknown;
}

export function commandFor(launcher: string, vigilHome: string | null, name: string): string {
  const home = vigilHome ? ` --home ${quote(vigilHome)}` : "";
  return `${quote(launcher)}${home} hook claude ${name}`;
}

export function parseJsonFile(path: string, text: string | null): Json {
  if (text === null || text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ValidationError(`${path}: Expected JSON, got malformed JSON (${(error as Error).message}); fix it first`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ValidationError(
      `${path}: Expected a JSON object, got ${Array.isArray(value) ? "an array" : typeof value}`,
    );
  }
  return value as Json;
}

/** Same indentation and final newline as the file had (two spaces and a newline for a new one). */
export function formatJson(value: Json, like: string | null): string {
  const newline = like === null || like.endsWith("\n") ? "\n" : "";
  // A file written on one line stays on one line.
  if (like !== null && like.trim() !== "" && !like.trimEnd().includes("\n"))
    return `${JSON.stringify(value)}${newline}`;
  const indent = like?.match(/^\{\s*\n([ \t]+)"/)?.[1] ?? "  ";
  return `${JSON.stringify(value, null, indent)}${newline}`;
}

function withoutOurHooks(settings: Json): Json {
  const hooks = settings.hooks as Record<string, HookGroup[]> | undefined;
  if (!hooks || typeof hooks !== "object") return settings;
  const next: Record<string, HookGroup[]> = {};
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) {
      next[event] = groups;
      continue;
    }
    const kept = groups
      .map((group) => ({ ...group, hooks: (group.hooks ?? []).filter((h) => !OURS.test(h.command ?? "")) }))
      .filter((group, i) => group.hooks.length > 0 || (groups[i]?.hooks ?? []).length === 0);
    if (kept.length > 0) next[event] = kept;
  }
  const { hooks: _dropped, ...rest } = settings;
  return Object.keys(next).length > 0 ? { ...rest, hooks: next } : rest;
}

function desiredHooks(launcher: string, vigilHome: string | null): Record<string, HookEntry[]> {
  const desired: Record<string, HookEntry[]> = {};
  for (const [event, hook] of Object.entries(CLAUDE_HOOKS)) {
    desired[event] = [{ type: "command", command: commandFor(launcher, vigilHome, hook.name), timeout: hook.timeout }];
  }
  desired.Stop?.push({
    type: "command",
    command: commandFor(launcher, vigilHome, REWAKE_HOOK.name),
    timeout: REWAKE_HOOK.timeout,
    async: true,
    asyncRewake: true,
  });
  return desired;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** True when each of Vigil's hooks is there exactly once, as wanted, wherever it sits. */
function hasExactlyOurHooks(settings: Json, desired: Record<string, HookEntry[]>): boolean {
  const hooks = (settings.hooks ?? {}) as Record<string, HookGroup[]>;
  const ours = Object.entries(hooks).flatMap(([event, groups]) =>
    (Array.isArray(groups) ? groups : []).flatMap((g) =>
      (g.hooks ?? []).filter((h) => OURS.test(h.command ?? "")).map((h) => ({ event, h })),
    ),
  );
  const wanted = Object.entries(desired).flatMap(([event, entries]) => entries.map((h) => ({ event, h })));
  return ours.length === wanted.length && wanted.every((w) => ours.some((o) => o.event === w.event && same(o.h, w.h)));
}

export function settingsWithHooks(settings: Json, launcher: string, vigilHome: string | null): Json {
  const desired = desiredHooks(launcher, vigilHome);
  if (hasExactlyOurHooks(settings, desired)) return settings;
  const base = withoutOurHooks(settings);
  const hooks = { ...((base.hooks as Record<string, HookGroup[]>) ?? {}) };
  for (const [event, entries] of Object.entries(desired)) hooks[event] = [...(hooks[event] ?? []), { hooks: entries }];
  return { ...base, hooks };
}

export function stateWithServer(state: Json, launcher: string, vigilHome: string | null): Json {
  const servers = { ...((state.mcpServers as Json) ?? {}) };
  const entry = { type: "stdio", command: launcher, args: vigilHome ? ["--home", vigilHome, "mcp"] : ["mcp"], env: {} };
  if (same(servers.vigil, entry)) return state;
  servers.vigil = entry;
  return { ...state, mcpServers: servers };
}

export function stateWithoutServer(state: Json): Json {
  const servers = { ...((state.mcpServers as Json) ?? {}) };
  delete servers.vigil;
  const { mcpServers: _dropped, ...rest } = state;
  return Object.keys(servers).length > 0 ? { ...rest, mcpServers: servers } : rest;
}

export const claudeRemovers = {
  settings: (text: string) => formatJson(withoutOurHooks(parseJsonFile("settings.json", text)), text),
  state: (text: string) => formatJson(stateWithoutServer(parseJsonFile(".claude.json", text)), text),
};

export function planClaudeCode(
  paths: ClaudePaths,
  current: { settings: string | null; state: string | null },
  launcher: string,
  vigilHome: string | null,
): PlannedFile[] {
  // Worked out again from the file as it is when written: Claude Code rewrites `.claude.json` all
  // the time (startups, projects, tips), and may write either file while setup runs.
  const settingsAfter = (text: string | null) =>
    sameJson(text, formatJson(settingsWithHooks(parseJsonFile(paths.settings, text), launcher, vigilHome), text));
  const stateAfter = (text: string | null) =>
    sameJson(text, formatJson(stateWithServer(parseJsonFile(paths.state, text), launcher, vigilHome), text));
  return [
    // Unchanged meaning keeps the bytes: a second run writes nothing.
    {
      path: paths.settings,
      before: current.settings,
      after: settingsAfter(current.settings),
      strip: claudeRemovers.settings,
      remerge: settingsAfter,
    },
    {
      path: paths.state,
      before: current.state,
      after: stateAfter(current.state),
      mode: 0o600,
      volatile: true,
      remerge: stateAfter,
    },
  ];
}

function sameJson(before: string | null, after: string): string {
  if (before === null) return after;
  try {
    return JSON.stringify(JSON.parse(before)) === JSON.stringify(JSON.parse(after)) ? before : after;
  } catch {
    return after;
  }
}
