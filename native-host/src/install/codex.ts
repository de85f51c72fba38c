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
import { isDeepStrictEqual } from "node:util";
import { parse, TomlError } from "smol-toml";
import { ValidationError } from "../base/errors.js";
import { codexRules, SANDBOX_NOTE, withoutRules } from "./codex-rules.js";
import { quote } from "./launcher.js";
import { type PlannedFile, readText } from "./managed-files.js";

export interface CodexPaths {
  home: string;
  config: string;
  /** Vigil's exec-policy rules: the `vigil` verbs that run nothing run outside Codex's sandbox. */
  rules: string;
}

export function codexPaths(env: NodeJS.ProcessEnv = process.env): CodexPaths {
  const home = env.CODEX_HOME || join(homedir(), ".codex");
  return { home, config: join(home, "config.toml"), rules: join(home, "rules", "vigil.rules") };
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

/** Do two TOML texts hold the same tables and values (comments and layout aside)? Never for invalid TOML. */
function sameToml(a: string, b: string): boolean {
  try {
    return isDeepStrictEqual(parse(a), parse(b));
  } catch {
    return false;
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

/** One table of a TOML text: its header's key path (null before the first header) and its lines. */
interface Section {
  path: string[] | null;
  lines: string[];
  /** BEGIN or END: one of Vigil's marker lines. */
  marker?: "begin" | "end";
}

/** A table header's key path, read by the TOML library (`[a."b.c"]` → ["a", "b.c"]), or null. */
function headerPath(line: string): string[] | null {
  if (!/^\s*\[/.test(line)) return null;
  let value: unknown;
  try {
    value = parse(line);
  } catch {
    return null;
  }
  const path: string[] = [];
  while (isTable(value) || (Array.isArray(value) && value.length === 1)) {
    const table: unknown = Array.isArray(value) ? value[0] : value;
    const keys = isTable(table) ? Object.keys(table) : [];
    if (keys.length !== 1) break;
    path.push(keys[0] as string);
    value = (table as Table)[keys[0] as string];
  }
  return path.length > 0 ? path : null;
}

/** The text cut at each table header and marker line (a `[` inside a multi-line string is not one). */
function sectionsOf(text: string): Section[] {
  const sections: Section[] = [{ path: null, lines: [] }];
  let inString: string | null = null;
  for (const line of text.split("\n")) {
    const header = inString === null ? headerPath(line) : null;
    if (inString === null && (line === BEGIN || line === END))
      sections.push({ path: null, lines: [line], marker: line === BEGIN ? "begin" : "end" }, { path: null, lines: [] });
    else if (header) sections.push({ path: header, lines: [line] });
    else (sections.at(-1) as Section).lines.push(line);
    for (const quote of line.match(/"""|'''/g) ?? [])
      inString = inString === null ? quote : inString === quote ? null : inString;
  }
  return sections;
}

const HOOK_EVENTS = new Set(Object.keys(CODEX_HOOKS));

/**
 * Which sections inside Vigil's markers are Vigil's own tables: [mcp_servers.vigil], its hook groups
 * and their handlers, and the trust entries for those handlers' commands. Whatever else lies
 * between the markers (Codex appends [tui], [projects."…"] and its own trust there) is not.
 */
function vigilSections(sections: Section[]): Set<Section> {
  const ours = new Set<Section>();
  const hashes = new Set<string>();
  let inside = false;
  const within: Section[] = [];
  for (const section of sections) {
    if (section.marker) inside = section.marker === "begin";
    else if (inside) within.push(section);
  }
  let event: string | null = null;
  for (const section of within) {
    const path = section.path ?? [];
    if (path[0] === "mcp_servers" && path[1] === "vigil") ours.add(section);
    else if (path[0] === "hooks" && HOOK_EVENTS.has(path[1] as string) && (path.length === 2 || path[2] === "hooks")) {
      ours.add(section);
      event = path[1] as string;
      if (path.length === 3) {
        const handler = parse(section.lines.slice(1).join("\n")) as { command?: unknown; timeout?: unknown };
        const snake = CODEX_HOOKS[event as keyof typeof CODEX_HOOKS].snake;
        if (typeof handler.command === "string")
          hashes.add(codexHookHash(snake, handler.command, Number(handler.timeout ?? HOOK_TIMEOUT_SECONDS)));
      }
    }
  }
  for (const section of within) {
    const path = section.path ?? [];
    if (path[0] !== "hooks" || path[1] !== "state" || path.length !== 3) continue;
    const entry = parse(section.lines.slice(1).join("\n")) as { trusted_hash?: unknown };
    if (hashes.has(String(entry.trusted_hash))) ours.add(section);
  }
  return ours;
}

const joinLines = (sections: Section[]) => sections.flatMap((section) => section.lines).join("\n");

/**
 * The config cut into what is not Vigil's and Vigil's own tables (null: no block). The markers go
 * with Vigil's part; tables Codex put between them stay with the rest, in their order.
 */
function splitConfig(text: string): { rest: string; ours: string } | null {
  if (!text.includes(BEGIN)) return null;
  const sections = sectionsOf(text);
  const ours = vigilSections(sections);
  const keep: Section[] = [];
  let block: Section[] = [];
  let inside = false;
  for (const section of sections) {
    if (section.marker) inside = section.marker === "begin";
    if (section.marker || ours.has(section)) block.push(section);
    else if (inside) keep.push({ ...section, lines: trimBlank(section.lines) });
    else keep.push(section);
  }
  block = block.map((section) => ({ ...section, lines: trimBlank(section.lines) }));
  let rest = joinLines(keep.filter((section) => section.lines.length > 0));
  // The blank line setup put before its block goes with it.
  rest = rest.replace(/\n\n+$/, "\n");
  if (!text.endsWith("\n") && rest.endsWith("\n")) rest = rest.slice(0, -1);
  return { rest: rest === "\n" ? "" : rest, ours: joinLines(block) };
}

const trimBlank = (lines: string[]) => {
  const out = [...lines];
  while (out.length > 0 && (out.at(-1) as string).trim() === "") out.pop();
  return out;
};

/**
 * The config without Vigil's part: its marker lines and its own tables. Tables Codex appended
 * inside the markers ([tui], [projects."…"]) are kept, in their order.
 */
export function withoutBlock(text: string): string {
  const split = splitConfig(text);
  if (split === null) return text;
  return split.rest === "" || split.rest.endsWith("\n") ? split.rest : `${split.rest}\n`;
}

export function planCodex(
  paths: CodexPaths,
  current: { config: string | null; rules?: string | null },
  launcher: string,
  vigilHome: string | null,
): { files: PlannedFile[]; notes: string[] } {
  const rulesBefore = current.rules === undefined ? readText(paths.rules) : current.rules;
  // Rules of the user's own in that file stay, before Vigil's.
  const theirs = rulesBefore === null ? null : withoutRules(rulesBefore);
  const rules: PlannedFile = {
    path: paths.rules,
    before: rulesBefore,
    after: theirs === null ? codexRules(launcher) : `${theirs.replace(/\n*$/, "\n")}${codexRules(launcher)}`,
    mode: 0o600,
    strip: withoutRules,
  };
  return {
    files: [planConfig(paths, current.config, launcher, vigilHome), rules],
    notes: [`${paths.rules}: ${SANDBOX_NOTE}`],
  };
}

function planConfig(paths: CodexPaths, before: string | null, launcher: string, vigilHome: string | null): PlannedFile {
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
  const block = codexBlock(paths.config, config, launcher, vigilHome);
  // Vigil's tables already there as they should be: nothing to change, whatever Codex put beside them.
  const ours = before === null ? null : splitConfig(before)?.ours;
  if (before !== null && ours && sameToml(ours, block) && sameToml(before, `${base}\n${block}`))
    return { path: paths.config, before, after: before, mode: 0o600, strip: withoutBlock };
  const separator = base === "" ? "" : base.endsWith("\n\n") ? "" : base.endsWith("\n") ? "\n" : "\n\n";
  const after = `${base}${separator}${block}`;
  // Never write what Codex could not load.
  parseConfig(
    paths.config,
    after,
    "valid TOML with Vigil's block added",
    "Hooks or MCP servers written inline (`Stop = [...]`, `hooks = {...}`) cannot take Vigil's tables: write them as [[hooks.Stop]] / [mcp_servers.NAME] tables and run setup again",
  );
  // Codex records trust and projects in this file: written meanwhile, the block is planned again on it.
  const remerge = (text: string | null) => planConfig(paths, text, launcher, vigilHome).after;
  return { path: paths.config, before, after, mode: 0o600, strip: withoutBlock, remerge };
}

export function codexRemovers(paths: CodexPaths): Array<[string, (text: string) => string | null]> {
  return [
    // The rules first: --remove then finds the folders setup created empty, deepest first.
    [paths.rules, withoutRules],
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
