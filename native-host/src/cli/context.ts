/**
 * What every subcommand shares: the home folder from `--home`, the session from `--session` or
 * $VIGIL_SESSION, and printing to stdout.
 * Design: docs/design.md §7.
 */
import type { Command } from "commander";
import { SessionIdSchema } from "../../../shared/schemas/ids.js";
import { agentOfShell, envConfig } from "../base/config.js";

export { agentOfShell };

import { resolveHome } from "../base/paths.js";
import { parseId } from "./options.js";

export const DEFAULT_SESSION = "default";

/** The help of every `--session` option (what sessionOf does). */
export const SESSION_HELP = "session (default: $VIGIL_SESSION, else this shell's agent session, else 'default')";

export interface GlobalOptions {
  home?: string;
}

export function homeOf(command: Command): string {
  return resolveHome((command.optsWithGlobals() as GlobalOptions).home);
}

/**
 * --session, else $VIGIL_SESSION, else the agent session this shell runs in, else "default"; a value
 * that is not a session id is a usage error.
 */
export function sessionOf(options: { session?: string }): string {
  if (options.session !== undefined) return parseId(SessionIdSchema, options.session, "--session");
  const fromEnv = envConfig().VIGIL_SESSION;
  if (fromEnv !== undefined) return parseId(SessionIdSchema, fromEnv, "$VIGIL_SESSION");
  return agentOfShell()?.id ?? DEFAULT_SESSION;
}

export function print(text: string): void {
  process.stdout.write(`${text}\n`);
}
