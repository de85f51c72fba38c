/**
 * `vigil setup codex`: `$CODEX_HOME/config.toml` (default ~/.codex) gets one marked block holding
 * Vigil's MCP server entry and its hooks, appended after everything else so nothing of the user's
 * is rewritten; --remove cuts the block out again. The file is parsed (smol-toml) before and after:
 * what Codex recorded itself is merged with, and a file Codex could not load is never written.
 * Design: docs/design.md §6, §7.
 */
import { createHash } from "node:crypto";
import { homedir } from "node:os";
import { join } from "node:path";
import { parse, TomlError } from "smol-toml";
import { ValidationError } from "../base/errors.js";
import { quote } from "./launcher.js";
import type { PlannedFile } from "./managed-files.js";

export interface CodexPaths {
  home: string;
  config: string;
}

export function codexPaths(env: NodeJS.ProcessEnv = process.env): CodexPaths {
  const home = env.CODEX_HOME || join(homedir(), ".codex");
  return { home, config: join(home, "config.toml") };
}

const BEGIN = "# >>> vigil (written by `vigil setup codex`; `vigil setup codex --remove` takes it out) >>>";
const END = "# <<< vigil <<<";

/** TOML basic string. */
const toml = (value: string) => JSON.stringify(value);

/** Codex hook event → `vigil hook codex <name>`, with Codex's snake-case event name. */
export const CODEX_HOOKS = {
  SessionStart: { name: "session-start", snake: "session_start" },
  UserPromptSubmit: { name: "prompt", snake: "user_prompt_submit" },
  Stop: { name: "stop", snake: "stop" },
} as const;
const HOOK_TIMEOUT_SECONDS = 30;

/**
 * Codex runs a hook only once it is trusted, and records trust as the sha256 of the hook's
 * normalised identity (compact JSON, keys sorted) under `hooks.state."<file>:<event>:<group>:<handler>"`:
 * what its own "Trust all" writes. Setup writes the same entry for each hook it adds.
 */
export function codexHookHash(event: string, command: string, timeout = HOOK_TIMEOUT_SECONDS): string {
  const sorted = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sorted)
      : value && typeof value === "object"
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
          )
        : value;
  const identity = { event_name: event, hooks: [{ type: "command", command, timeout, async: false }] };
  return `sha256:${createHash("sha256")
    .update(JSON.stringify(sorted(identity)))
    .digest("hex")}`;
}

type Table = Record<string, unknown>;
const isTable = (value: unknown): value is Table =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The config as Codex reads it; text Codex could not load is refused, naming the file and the place. */
function parseConfig(path: string, text: string, what: string, advice = ""): Table {
  try {
    return parse(text);
  } catch (error) {
    const detail =
      error instanceof TomlError
        ? `${error.message.split("\n")[0]?.replace(/^Invalid TOML document: /, "")} at line ${error.line}, column ${error.column}`
        : (error as Error).message;
    throw new ValidationError(
      `${path}: Expected ${what}, got invalid TOML (${detail}); the file was not changed${advice ? `. ${advice}` : ""}`,
      { cause: error },
    );
  }
}

/** How many `[[hooks.<Event>]]` groups the rest of the file defines (Vigil's come after them). */
const groupsIn = (config: Table, event: string) => {
  const groups = isTable(config.hooks) ? config.hooks[event] : undefined;
  return Array.isArray(groups) ? groups.length : 0;
};

/**
 * Vigil's block. `config` is the rest of the file, parsed: a trust entry Codex already recorded
 * there for one of Vigil's hooks (`[hooks.state."<key>"]`, written by its "Trust all") is kept and
 * not written again (two tables of one name make the file invalid); one recorded for another hook
 * in that place is refused, naming it.
 */
export function codexBlock(configPath: string, config: Table, launcher: string, vigilHome: string | null): string {
  const homeArgs = vigilHome ? ["--home", vigilHome] : [];
  const hookCommand = (name: string) => [quote(launcher), ...homeArgs.map(quote), "hook", "codex", name].join(" ");
  const recorded = isTable(config.hooks) && isTable(config.hooks.state) ? config.hooks.state : {};
  const lines = [
    BEGIN,
    "[mcp_servers.vigil]",
    `command = ${toml(launcher)}`,
    `args = [${[...homeArgs, "mcp"].map(toml).join(", ")}]`,
  ];
  const trust: string[] = [];
  for (const [event, hook] of Object.entries(CODEX_HOOKS)) {
    const command = hookCommand(hook.name);
    lines.push(
      "",
      `[[hooks.${event}]]`,
      `[[hooks.${event}.hooks]]`,
      'type = "command"',
      `command = ${toml(command)}`,
      `timeout = ${HOOK_TIMEOUT_SECONDS}`,
    );
    const key = `${configPath}:${hook.snake}:${groupsIn(config, event)}:0`;
    const hash = codexHookHash(hook.snake, command);
    const theirs = recorded[key];
    if (theirs === undefined) trust.push("", `[hooks.state.${toml(key)}]`, `trusted_hash = ${toml(hash)}`);
    else if (!isTable(theirs) || theirs.trusted_hash !== hash)
      throw new ValidationError(
        `${configPath}: Expected no trust entry [hooks.state.${toml(key)}] outside Vigil's block, got one for another hook (recorded by Codex for an earlier hook in that place); remove that table and run setup again. The file was not changed`,
      );
  }
  lines.push(...trust, END);
  return `${lines.join("\n")}\n`;
}

/** The config without Vigil's block (and without the blank line setup put before it). */
export function withoutBlock(text: string): string {
  const start = text.indexOf(BEGIN);
  if (start === -1) return text;
  const endAt = text.indexOf(END, start);
  const end = endAt === -1 ? text.length : endAt + END.length + (text[endAt + END.length] === "\n" ? 1 : 0);
  const before = text.slice(0, start);
  const trimmed = before.endsWith("\n\n") ? before.slice(0, -1) : before;
  return trimmed + text.slice(end);
}

export function planCodex(
  paths: CodexPaths,
  current: { config: string | null },
  launcher: string,
  vigilHome: string | null,
): { files: PlannedFile[]; notes: string[] } {
  const before = current.config;
  const base = before === null ? "" : withoutBlock(before);
  // The user's part must be valid; Vigil's own block is written anew (which mends a file an earlier
  // setup broke by repeating a table Codex had recorded).
  const config = parseConfig(paths.config, base, "valid TOML outside Vigil's block");
  if (isTable(config.mcp_servers) && config.mcp_servers.vigil !== undefined) {
    // Two tables of one name make the whole file invalid for Codex.
    throw new ValidationError(
      `${paths.config}: Expected no [mcp_servers.vigil] outside Vigil's block, got one (from an earlier manual setup); remove that table and run setup again`,
    );
  }
  const separator = base === "" ? "" : base.endsWith("\n\n") ? "" : base.endsWith("\n") ? "\n" : "\n\n";
  const after = `${base}${separator}${codexBlock(paths.config, config, launcher, vigilHome)}`;
  // Never write what Codex could not load.
  parseConfig(
    paths.config,
    after,
    "valid TOML with Vigil's block added",
    "Hooks or MCP servers written inline (`Stop = [...]`, `hooks = {...}`) cannot take Vigil's tables: write them as [[hooks.Stop]] / [mcp_servers.NAME] tables and run setup again",
  );
  // Codex records trust and projects in this file: written meanwhile, the block is planned again on it.
  const remerge = (text: string | null) =>
    planCodex(paths, { config: text }, launcher, vigilHome).files[0]?.after ?? null;
  return { files: [{ path: paths.config, before, after, mode: 0o600, strip: withoutBlock, remerge }], notes: [] };
}

export function codexRemovers(paths: CodexPaths): Array<[string, (text: string) => string | null]> {
  return [
    [
      paths.config,
      (text) => {
        // What Codex wrote into the block since could leave keys without their table once it is cut.
        const without = withoutBlock(text);
        parseConfig(paths.config, without, "valid TOML once Vigil's block is taken out");
        return without;
      },
    ],
  ];
}
