/**
 * `vigil setup copilot`: one hook file in GitHub Copilot CLI's user-level hooks folder
 * (`~/.copilot/hooks/vigil.json`, or under $COPILOT_HOME), which Copilot CLI loads for every
 * session besides a repository's `.github/hooks/*.json`. Four command hooks: sessionStart binds the
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
}

export function copilotPaths(env: NodeJS.ProcessEnv = process.env): CopilotPaths {
  const home = env.COPILOT_HOME || join(homedir(), ".copilot");
  return { home, hooks: join(home, "hooks", "vigil.json") };
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

export function planCopilot(
  paths: CopilotPaths,
  current: { hooks: string | null },
  launcher: string,
  vigilHome: string | null,
): PlannedFile[] {
  const file = parseJsonFile(paths.hooks, current.hooks);
  const next = copilotHooksWith(file, launcher, vigilHome);
  // Unchanged meaning keeps the bytes: a second run writes nothing.
  const after = next === file && current.hooks !== null ? current.hooks : formatJson(next, current.hooks);
  return [{ path: paths.hooks, before: current.hooks, after, mode: 0o644, strip: copilotRemover }];
}

/** Does the hook file hold Vigil's hooks? */
export const isCopilotSetUp = (text: string | null) => /hook copilot session-start/.test(text ?? "");
