/**
 * `vigil setup gemini`: Gemini CLI's user settings (`~/.gemini/settings.json`, or under
 * $GEMINI_CLI_HOME) get Vigil's MCP server entry and four hooks: SessionStart binds the Gemini
 * session to a Vigil session of the same id; BeforeAgent and AfterAgent hand pending wakes to the
 * live session (AfterAgent's block continues the turn with them); SessionEnd marks it closed.
 * Everything else in the file is kept as it was.
 * Design: docs/design.md §6, §7.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { formatJson, parseJsonFile } from "./claude-code.js";
import { quote } from "./launcher.js";
import type { PlannedFile } from "./managed-files.js";

export interface GeminiPaths {
  /** What Gemini CLI takes for home ($GEMINI_CLI_HOME, else the user's). */
  home: string;
  configDir: string;
  settings: string;
}

export function geminiPaths(env: NodeJS.ProcessEnv = process.env): GeminiPaths {
  const home = env.GEMINI_CLI_HOME || homedir();
  const configDir = join(home, ".gemini");
  return { home, configDir, settings: join(configDir, "settings.json") };
}

/** Gemini CLI hook event → `vigil hook gemini <name>` (timeouts in milliseconds, as Gemini reads them). */
export const GEMINI_HOOKS = {
  SessionStart: { name: "session-start", timeout: 30_000 },
  BeforeAgent: { name: "prompt", timeout: 30_000 },
  AfterAgent: { name: "stop", timeout: 30_000 },
  SessionEnd: { name: "session-end", timeout: 30_000 },
} as const;

const OURS = /(^|\s)hook gemini (session-start|prompt|stop|session-end)$/;

type Json = Record<string, unknown>;
interface HookEntry {
  type?: string;
  command?: string;
  [key: string]: unknown;
}
interface HookGroup {
  hooks?: HookEntry[];
  [key: string]: unknown;
}

export function geminiHookCommand(launcher: string, vigilHome: string | null, name: string): string {
  return [quote(launcher), ...(vigilHome ? ["--home", quote(vigilHome)] : []), "hook", "gemini", name].join(" ");
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The hook groups of one event without Vigil's hooks (a group left empty by that goes too). */
function withoutOurHooks(groups: HookGroup[]): HookGroup[] {
  return groups
    .map((group) => ({ ...group, hooks: (group.hooks ?? []).filter((h) => !OURS.test(h.command ?? "")) }))
    .filter((group, i) => group.hooks.length > 0 || (groups[i]?.hooks ?? []).length === 0);
}

const isTable = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** The settings without Vigil's hooks and MCP entry, every other key where it was. */
function withoutOurs(settings: Json): Json {
  const next: Json = {};
  for (const [key, value] of Object.entries(settings)) {
    if (key === "hooks" && isTable(value)) {
      const kept: Json = {};
      for (const [event, groups] of Object.entries(value)) {
        const left = Array.isArray(groups) ? withoutOurHooks(groups as HookGroup[]) : groups;
        if (!Array.isArray(left) || left.length > 0) kept[event] = left;
      }
      if (Object.keys(kept).length > 0) next.hooks = kept;
    } else if (key === "mcpServers" && isTable(value)) {
      const { vigil: _ours, ...servers } = value;
      if (Object.keys(servers).length > 0) next.mcpServers = servers;
    } else next[key] = value;
  }
  return next;
}

/** The settings with exactly Vigil's hooks and MCP entry; the same object when they are already there. */
export function geminiSettingsWith(settings: Json, launcher: string, vigilHome: string | null): Json {
  const server = { command: launcher, args: vigilHome ? ["--home", vigilHome, "mcp"] : ["mcp"] };
  const desired = Object.entries(GEMINI_HOOKS).map(([event, hook]) => ({
    event,
    entry: { type: "command", command: geminiHookCommand(launcher, vigilHome, hook.name), timeout: hook.timeout },
  }));
  const hooks = (settings.hooks ?? {}) as Record<string, HookGroup[]>;
  const ours = Object.entries(hooks).flatMap(([event, groups]) =>
    (Array.isArray(groups) ? groups : []).flatMap((g) =>
      (g.hooks ?? []).filter((h) => OURS.test(h.command ?? "")).map((entry) => ({ event, entry })),
    ),
  );
  const serverThere = same((settings.mcpServers as Json | undefined)?.vigil, server);
  const hooksThere =
    ours.length === desired.length && desired.every((d) => ours.some((o) => o.event === d.event && same(o, d)));
  if (serverThere && hooksThere) return settings;
  const base = withoutOurs(settings);
  const nextHooks = { ...((base.hooks as Record<string, HookGroup[]>) ?? {}) };
  for (const { event, entry } of desired) nextHooks[event] = [...(nextHooks[event] ?? []), { hooks: [entry] }];
  return { ...base, mcpServers: { ...((base.mcpServers as Json) ?? {}), vigil: server }, hooks: nextHooks };
}

export const geminiRemover = (text: string) => formatJson(withoutOurs(parseJsonFile("settings.json", text)), text);

export function planGemini(
  paths: GeminiPaths,
  current: { settings: string | null },
  launcher: string,
  vigilHome: string | null,
): PlannedFile[] {
  const after = (text: string | null) => {
    const settings = parseJsonFile(paths.settings, text);
    const next = geminiSettingsWith(settings, launcher, vigilHome);
    // Unchanged meaning keeps the bytes: a second run writes nothing.
    return next === settings && text !== null ? text : formatJson(next, text);
  };
  return [
    {
      path: paths.settings,
      before: current.settings,
      after: after(current.settings),
      strip: geminiRemover,
      // Gemini CLI writes this file itself (auth choice, theme): merged again if it changed meanwhile.
      remerge: after,
    },
  ];
}

/** Does the settings file hold Vigil's hooks? */
export const isGeminiSetUp = (text: string | null) => /hook gemini session-start/.test(text ?? "");
