/**
 * What a new login shell of the user's finds: `bash -lc`, `zsh -lc`, `fish -lc`, started the way a
 * login starts them — the user's HOME, a plain system PATH — so only their profiles (and the ones
 * `vigil setup` writes) put anything else on PATH. An agent's shell tool looks `vigil` up this way,
 * and the daemon finds the agent's CLI the same way the user's terminal does.
 * Design: docs/design.md §7.
 */
import { homedir } from "node:os";
import { basename, join } from "node:path";
import { isExecutable } from "../base/how-to-run.js";

export const SHELLS = ["bash", "zsh", "fish"] as const;
export type ShellName = (typeof SHELLS)[number];

/** The PATH login(1) starts a shell with, before any profile. */
const LOGIN_PATH = "/usr/local/bin:/usr/bin:/bin";
/** Where shells are installed (Debian, Homebrew on both architectures). */
const SHELL_DIRS = ["/bin", "/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"];

/** The shell's program, or null when this machine does not have it. */
export function shellProgram(shell: ShellName): string | null {
  return SHELL_DIRS.map((dir) => join(dir, shell)).find(isExecutable) ?? null;
}

/** The user's login shell ($SHELL when it is bash, zsh or fish), else bash. */
export function userShell(env: NodeJS.ProcessEnv = process.env): ShellName {
  const name = basename(env.SHELL ?? "");
  return (SHELLS as readonly string[]).includes(name) ? (name as ShellName) : "bash";
}

export interface LoginShellRun {
  /** The command as the user would type it to see the same, e.g. `zsh -lc 'command -v vigil'`. */
  shown: string;
  exitCode: number | undefined;
  stdout: string;
  timedOut: boolean;
}

/** Runs `script` in a new login shell of `shell` with the user's HOME; the same words in all three shells. */
export async function inLoginShell(
  shell: ShellName,
  script: string,
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = 30_000,
): Promise<LoginShellRun> {
  const program = shellProgram(shell) ?? shell;
  // Loaded here, not at the top: every `vigil` command imports this module, few run a shell.
  const { execa } = await import("execa");
  const result = await execa(program, ["-lc", script], {
    reject: false,
    timeout: timeoutMs,
    forceKillAfterDelay: 1000,
    stdin: "ignore",
    env: {
      HOME: env.HOME ?? homedir(),
      USER: env.USER ?? "",
      LOGNAME: env.LOGNAME ?? env.USER ?? "",
      SHELL: program,
      LANG: env.LANG ?? "C.UTF-8",
      PATH: LOGIN_PATH,
      ...(env.XDG_CONFIG_HOME ? { XDG_CONFIG_HOME: env.XDG_CONFIG_HOME } : {}),
      ...(env.ZDOTDIR ? { ZDOTDIR: env.ZDOTDIR } : {}),
    },
    extendEnv: false,
  });
  return {
    shown: `${shell} -lc '${script}'`,
    exitCode: result.exitCode,
    stdout: String(result.stdout ?? "").trim(),
    timedOut: result.timedOut,
  };
}

/** Where `program` resolves in a login shell of `shell`, or null. */
export async function lookUp(
  shell: ShellName,
  program: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ path: string | null; run: LoginShellRun }> {
  const run = await inLoginShell(shell, `command -v ${program}`, env, 15_000);
  const path = run.exitCode === 0 ? (run.stdout.split("\n").at(-1) ?? "") : "";
  return { path: path.startsWith("/") ? path : null, run };
}
