/**
 * Putting the launcher's folder (~/.local/bin) on PATH for every login shell the user has, so an
 * agent's shell tool finds `vigil` by name: a marked block at the end of bash's login file
 * (~/.bash_profile or ~/.bash_login when one exists, since bash then reads only it; else ~/.profile)
 * and of ~/.zprofile, and a file of Vigil's own in fish's ~/.config/fish/conf.d/. Written through
 * ManagedFiles like every setup edit, so `--remove` puts each file back. Doctor then asks each
 * installed shell whether it finds `vigil` (shellPathFindings).
 * Design: docs/design.md §7.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join, relative, sep } from "node:path";
import { isExecutable, isTemporaryPathEntry, userPathEntries } from "../base/how-to-run.js";
import type { Finding } from "./install.js";
import { isLauncher, quote } from "./launcher.js";
import { lookUp, SHELLS, type ShellName, shellProgram } from "./login-shell.js";
import { type PlannedFile, readText } from "./managed-files.js";

const BEGIN = "# >>> vigil (written by `vigil setup`: its launcher's folder on PATH; `--remove` takes it out) >>>";
const END = "# <<< vigil <<<";
const FISH_MARK =
  "# Written by `vigil setup`: its launcher's folder on PATH; `vigil setup … --remove` deletes this file.";

interface ShellFiles {
  home: string;
  bash: string;
  zsh: string;
  fish: string;
  /** Every file a block may be in (bash's login file can be any of three). */
  all: string[];
}

function shellFiles(env: NodeJS.ProcessEnv): ShellFiles {
  const home = env.HOME ?? homedir();
  const bashFiles = [".bash_profile", ".bash_login", ".profile"].map((name) => join(home, name));
  const zsh = join(env.ZDOTDIR ?? home, ".zprofile");
  const fish = join(env.XDG_CONFIG_HOME ?? join(home, ".config"), "fish", "conf.d", "vigil.fish");
  const bash = bashFiles.find((file) => existsSync(file)) ?? (bashFiles.at(-1) as string);
  return { home, bash, zsh, fish, all: [...bashFiles, zsh] };
}

/** `dir` as the shells should read it: under HOME as `$HOME/…`, so a moved home keeps working. */
function shellDir(dir: string, home: string): string {
  const inside = relative(home, dir);
  return inside !== "" && !inside.startsWith("..") && !inside.startsWith(sep) ? `$HOME/${inside}` : quote(dir);
}

const posixBlock = (dir: string) =>
  `${BEGIN}\ncase ":$PATH:" in *":${dir}:"*) ;; *) PATH="${dir}:$PATH"; export PATH ;; esac\n${END}\n`;

const fishFile = (dir: string) => `${FISH_MARK}\ncontains -- ${dir} $PATH; or set -gx PATH ${dir} $PATH\n`;

/** The text without Vigil's block (its marker lines and what is between them). */
export function withoutPathBlock(text: string): string {
  const start = text.indexOf(`${BEGIN}\n`);
  const end = text.indexOf(`${END}\n`, start);
  if (start < 0 || end < 0) return text;
  return text.slice(0, start) + text.slice(end + END.length + 1);
}

function withBlock(text: string | null, block: string): string {
  if (text?.includes(block)) return text;
  const base = withoutPathBlock(text ?? "");
  return base === "" ? block : `${base.endsWith("\n") ? base : `${base}\n`}${block}`;
}

const withoutFishFile = (text: string) => (text.startsWith(FISH_MARK) ? null : text);

/** Whether setup writes for this shell: it is installed, or its profile is there already. */
function usesShell(shell: ShellName, files: ShellFiles): boolean {
  if (shell === "bash") return true;
  if (shellProgram(shell) !== null) return true;
  return shell === "zsh"
    ? existsSync(files.zsh) || existsSync(join(files.home, ".zshrc"))
    : existsSync(join(files.fish, "..", ".."));
}

/** The files that put `binDir` on PATH for the user's login shells. */
export function planShellPath(binDir: string, env: NodeJS.ProcessEnv = process.env): PlannedFile[] {
  const files = shellFiles(env);
  const dir = shellDir(binDir, files.home);
  const planned: PlannedFile[] = [];
  for (const shell of SHELLS.filter((name) => usesShell(name, files))) {
    const path = files[shell];
    const before = readText(path);
    if (shell === "fish") planned.push({ path, before, after: fishFile(dir), mode: 0o644, strip: withoutFishFile });
    else
      planned.push({ path, before, after: withBlock(before, posixBlock(dir)), mode: 0o644, strip: withoutPathBlock });
  }
  return planned;
}

/** Every file setup may have put the PATH block in, with how to take it out. */
export function shellPathRemovers(env: NodeJS.ProcessEnv = process.env): [string, (text: string) => string | null][] {
  const files = shellFiles(env);
  return [
    ...files.all.map((path) => [path, withoutPathBlock] as [string, typeof withoutPathBlock]),
    [files.fish, withoutFishFile],
  ];
}

/**
 * What mends a login shell that does not find `vigil`: `setup` (the setup command), which writes the
 * PATH block for its launcher — unless `vigil` is installed elsewhere on this PATH (a global npm
 * install, where setup writes no launcher): then that folder goes on the shell's PATH.
 */
function pathFix(setup: string, file: string, env: NodeJS.ProcessEnv): string {
  const launcher = join(env.HOME ?? homedir(), ".local", "bin", "vigil");
  const elsewhere = userPathEntries(env).find(
    (dir) => isExecutable(join(dir, "vigil")) && join(dir, "vigil") !== launcher,
  );
  return isLauncher(readText(launcher)) || elsewhere === undefined
    ? `${setup} (puts ~/.local/bin on PATH in ${file})`
    : `put ${elsewhere} on PATH in ${file}, where vigil is installed`;
}

/**
 * For each login shell this machine has: does it find `vigil`, outside npm's temporary folders?
 * `setup` is the setup command that writes the shell's PATH block.
 */
export async function shellPathFindings(setup: string, env: NodeJS.ProcessEnv = process.env): Promise<Finding[]> {
  const shells = SHELLS.filter((shell) => shellProgram(shell) !== null);
  const files = shellFiles(env);
  return Promise.all(
    shells.map(async (shell): Promise<Finding> => {
      const { path, run } = await lookUp(shell, "vigil", env);
      if (path !== null && !isTemporaryPathEntry(path, env))
        return { ok: true, what: `${shell}'s login shell finds vigil: ${path}` };
      const why = run.timedOut
        ? "timed out"
        : path !== null
          ? `found only ${path}, in npm's temporary folders`
          : "not found";
      return {
        ok: false,
        what: `${shell}'s login shell does not find vigil (${run.shown}: ${why}); an agent's \`vigil wait …\` there would fail`,
        fix: pathFix(setup, files[shell].replace(files.home, "~"), env),
      };
    }),
  );
}
