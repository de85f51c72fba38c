/**
 * What every subcommand shares: the home folder from `--home`, the session from `--session` or
 * $VIGIL_SESSION, and printing (text from outside shown safely on a terminal).
 * Design: docs/design.md §7.
 */
import type { Command } from "commander";
import { SessionIdSchema } from "../../../shared/schemas/ids.js";
import { agentOfShell, envConfig } from "../base/config.js";

export { agentOfShell };

import { resolveHome } from "../base/paths.js";
import { defaultSessionOf } from "../base/team-file.js";
import { exactJson, forTerminal } from "../base/terminal-text.js";
import { parseId, usageError } from "./options.js";

/** The help of every `--session` option (what sessionOf does). */
export const SESSION_HELP =
  "session (default: $VIGIL_SESSION, else this shell's agent session, else 'default'; in team mode 'default-HOST')";

export interface GlobalOptions {
  home?: string;
}

export function homeOf(command: Command): string {
  return resolveHome((command.optsWithGlobals() as GlobalOptions).home);
}

/**
 * --session, else $VIGIL_SESSION, else the agent session this shell runs in, else "default" (in a
 * team home "default-HOST": a session is one host's); a value that is not a session id is a usage error.
 */
export function sessionOf(options: { session?: string }, command: Command): string {
  if (options.session !== undefined) return parseId(SessionIdSchema, options.session, "--session");
  const fromEnv = envConfig().VIGIL_SESSION;
  if (fromEnv !== undefined) return parseId(SessionIdSchema, fromEnv, "$VIGIL_SESSION");
  return agentOfShell()?.id ?? defaultSessionOf(homeOf(command));
}

/**
 * The session a command check or watch is armed for. Inside a Codex session (CODEX_THREAD_ID, which
 * Codex sets for its tools and a command its rules let out cannot drop) it is that session only:
 * the check runs in that session's sandbox, so arming it for another session (one with full
 * access) would run it with more power than the agent that armed it (issue #37).
 */
export function armingSessionOf(options: { session?: string }, command: Command): string {
  const sid = sessionOf(options, command);
  const agent = agentOfShell();
  if (agent?.kind === "codex" && sid !== agent.id)
    throw usageError(
      `Expected --session (or $VIGIL_SESSION) to name this Codex session ${agent.id} or nothing: a check armed from Codex runs in its session's sandbox; got ${sid}`,
    );
  return sid;
}

/**
 * Every line the CLI prints goes through one of these three: on a terminal, control characters in
 * the text (a job's escape sequences) are shown, not acted on (base/terminal-text.ts).
 */
export function print(text: string): void {
  process.stdout.write(`${forTerminal(process.stdout, text)}\n`);
}

/** JSON output: the exact value, with no raw character a terminal would act on. */
export function printJson(value: unknown, indent: number | undefined = 2): void {
  process.stdout.write(`${exactJson(value, indent)}\n`);
}

/** A line on stderr, shown as print shows it when stderr is a terminal. */
export function printError(text: string): void {
  process.stderr.write(`${forTerminal(process.stderr, text)}\n`);
}
