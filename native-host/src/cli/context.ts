/**
 * What every subcommand shares: the home folder from `--home`, the session from `--session` or
 * $VIGIL_SESSION, and printing to stdout.
 * Design: docs/design.md §7.
 */
import type { Command } from "commander";
import { agentOfShell, envConfig } from "../base/config.js";

export { agentOfShell };

import { resolveHome } from "../base/paths.js";

export const DEFAULT_SESSION = "default";

/** The help of every `--session` option (what sessionOf does). */
export const SESSION_HELP = "session (default: $VIGIL_SESSION, else this shell's agent session, else 'default')";

export interface GlobalOptions {
  home?: string;
}

export function homeOf(command: Command): string {
  return resolveHome((command.optsWithGlobals() as GlobalOptions).home);
}

/** --session, else $VIGIL_SESSION, else the agent session this shell runs in, else "default". */
export function sessionOf(options: { session?: string }): string {
  return options.session ?? envConfig().VIGIL_SESSION ?? agentOfShell()?.id ?? DEFAULT_SESSION;
}

export function print(text: string): void {
  process.stdout.write(`${text}\n`);
}
