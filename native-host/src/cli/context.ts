/**
 * What every subcommand shares: the home folder from `--home`, the session from `--session` or
 * $VIGIL_SESSION, and printing to stdout.
 * Design: docs/design.md §7.
 */
import type { Command } from "commander";
import { envConfig } from "../base/config.js";
import { resolveHome } from "../base/paths.js";

export const DEFAULT_SESSION = "default";

export interface GlobalOptions {
  home?: string;
}

export function homeOf(command: Command): string {
  return resolveHome((command.optsWithGlobals() as GlobalOptions).home);
}

/** The agent whose session a command runs in, when it was started from an agent's shell. */
export function agentOfShell(): { kind: "claude" | "codex"; id: string } | null {
  const env = envConfig();
  if (env.CLAUDE_CODE_SESSION_ID) return { kind: "claude", id: env.CLAUDE_CODE_SESSION_ID };
  if (env.CODEX_THREAD_ID) return { kind: "codex", id: env.CODEX_THREAD_ID };
  return null;
}

/** --session, else $VIGIL_SESSION, else the agent session this shell runs in, else "default". */
export function sessionOf(options: { session?: string }): string {
  return options.session ?? envConfig().VIGIL_SESSION ?? agentOfShell()?.id ?? DEFAULT_SESSION;
}

export function print(text: string): void {
  process.stdout.write(`${text}\n`);
}
