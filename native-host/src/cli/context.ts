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

export function sessionOf(options: { session?: string }): string {
  return options.session ?? envConfig().VIGIL_SESSION ?? DEFAULT_SESSION;
}

export function print(text: string): void {
  process.stdout.write(`${text}\n`);
}
