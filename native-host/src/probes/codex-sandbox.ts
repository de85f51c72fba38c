/**
 * A check armed by a sandboxed Codex agent runs inside Codex's own sandbox (issue #37, High 2): the
 * shell command a check would run becomes `codex sandbox -C ROOT -P PROFILE -- /bin/sh -c …`, by the
 * codex binary pinned on the trigger when it was armed. The rest (process group, timeout, tails,
 * the spawner) is unchanged: the wrapper is only another shell command.
 * Design: docs/design.md §8.
 */
import type { CheckSandbox } from "../../../shared/schemas/sandbox.js";

/** Codex 0.169's built-in permission profiles (`codex sandbox -P`): no network in either. */
const PROFILE = { "workspace-write": ":workspace", "read-only": ":read-only" } as const;

/** POSIX shell single quotes. */
export const shellQuote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/**
 * The shell command that runs `command` in folder `cwd` inside Codex's sandbox: only `root` (and
 * the temp folders) writable in workspace-write, nothing in read-only, and no network.
 */
export function sandboxedCommand(command: string, cwd: string, sandbox: CheckSandbox): string {
  const inner = 'cd -- "$0" || exit 126; exec /bin/sh -c "$1"';
  return [
    "exec",
    shellQuote(sandbox.codex),
    "sandbox",
    "-C",
    shellQuote(sandbox.root),
    "-P",
    PROFILE[sandbox.mode],
    "--",
    "/bin/sh",
    "-c",
    shellQuote(inner),
    shellQuote(cwd),
    shellQuote(command),
  ].join(" ");
}
