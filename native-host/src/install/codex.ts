/**
 * `vigil setup codex`: `$CODEX_HOME/config.toml` (default ~/.codex) gets one marked block holding
 * Vigil's MCP server entry and its hooks, appended after everything else so nothing of the user's
 * is rewritten; --remove cuts the block out again.
 * Design: docs/design.md §6, §7.
 */
import { homedir } from "node:os";
import { join } from "node:path";
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

/** Codex hook event → `vigil hook codex <name>`. */
export const CODEX_HOOKS = { SessionStart: "session-start", UserPromptSubmit: "prompt", Stop: "stop" } as const;

export function codexBlock(launcher: string, vigilHome: string | null): string {
  const homeArgs = vigilHome ? ["--home", vigilHome] : [];
  const hookCommand = (name: string) => [quote(launcher), ...homeArgs.map(quote), "hook", "codex", name].join(" ");
  const lines = [
    BEGIN,
    "[mcp_servers.vigil]",
    `command = ${toml(launcher)}`,
    `args = [${[...homeArgs, "mcp"].map(toml).join(", ")}]`,
  ];
  for (const [event, name] of Object.entries(CODEX_HOOKS)) {
    lines.push(
      "",
      `[[hooks.${event}]]`,
      `[[hooks.${event}.hooks]]`,
      'type = "command"',
      `command = ${toml(hookCommand(name))}`,
    );
  }
  lines.push(END);
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
  const separator = base === "" ? "" : base.endsWith("\n\n") ? "" : base.endsWith("\n") ? "\n" : "\n\n";
  const after = `${base}${separator}${codexBlock(launcher, vigilHome)}`;
  return { files: [{ path: paths.config, before, after, mode: 0o600 }], notes: [] };
}

export function codexRemovers(paths: CodexPaths): Array<[string, (text: string) => string | null]> {
  return [[paths.config, (text) => withoutBlock(text)]];
}
