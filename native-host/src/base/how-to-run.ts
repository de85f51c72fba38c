/**
 * How this user runs Vigil, for every message that tells them to run something: `npx vigil` when
 * this process came through npx, `vigil` when their own PATH has it, else the absolute path of the
 * launcher `vigil setup` wrote (or of this checkout's bin). npm's per-command PATH entries (npx's
 * `~/.npm/_npx/<hash>/node_modules/.bin`, a project's `node_modules/.bin`) are never the user's.
 * Design: docs/design.md §7.
 */
import { accessSync, constants } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join, relative, sep } from "node:path";
import { packageRoot } from "./paths.js";

const isInside = (dir: string, parent: string) => {
  const path = relative(parent, dir);
  return path === "" || (!path.startsWith("..") && !path.startsWith(sep));
};

/**
 * A PATH entry npm puts there for one command only (npx, `npm exec`, `npm run`): anything in npm's
 * cache (`_npx/<hash>/node_modules/.bin`), a project's `node_modules/.bin`, npm's own helper dirs.
 * A `vigil` found there is gone once that command ends, or when the agent's shell is elsewhere.
 */
export function isTemporaryPathEntry(dir: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const parts = dir.split(sep);
  if (parts.includes("_npx") || parts.includes("node_modules")) return true;
  const caches = [env.npm_config_cache, join(homedir(), ".npm")].filter((path): path is string => Boolean(path));
  return caches.some((cache) => isInside(dir, cache));
}

/** The user's own PATH entries: PATH without npm's temporary ones. */
export function userPathEntries(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.PATH ?? "").split(delimiter).filter((dir) => dir !== "" && !isTemporaryPathEntry(dir, env));
}

export const isExecutable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * True when this process is `npx vigil …` itself: its script is npx's (in npx's cache, or a
 * project's `node_modules/.bin` that `npm exec` ran). npm's `npm_command=exec` alone is not enough:
 * every process below an npx command inherits it (a test run under `npx vitest`, a hook).
 */
export function isUnderNpx(env: NodeJS.ProcessEnv = process.env, script = process.argv[1] ?? ""): boolean {
  if (!isTemporaryPathEntry(script, env)) return false;
  return env.npm_command === "exec" || script.split(sep).includes("_npx");
}

/** The words that run Vigil for this user, e.g. `vigil`, `npx vigil`, `/home/u/.local/bin/vigil`. */
export function vigilCommand(env: NodeJS.ProcessEnv = process.env, script = process.argv[1]): string {
  if (isUnderNpx(env, script)) return "npx vigil";
  if (userPathEntries(env).some((dir) => isExecutable(join(dir, "vigil")))) return "vigil";
  const launcher = join(homedir(), ".local", "bin", "vigil");
  return isExecutable(launcher) ? launcher : join(packageRoot, "bin", "vigil.js");
}

/** `vigilCommand()` and then `args`, with `--home` when `home` is not the default one. */
export function vigilCommandLine(args: string, home?: string, env: NodeJS.ProcessEnv = process.env): string {
  const named = home !== undefined && home !== join(homedir(), ".vigil") ? ` --home ${home}` : "";
  return `${vigilCommand(env)}${named} ${args}`;
}
