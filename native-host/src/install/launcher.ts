/**
 * Making `vigil` callable by name from an agent's shell: when `vigil` on the user's own PATH is this
 * checkout already, nothing is written; else a two-line launcher goes in ~/.local/bin (the XDG user
 * bin dir). The entries npm adds for one command (`npx vigil setup …` runs with npx's temporary
 * `~/.npm/_npx/<hash>/node_modules/.bin` first on PATH) are not the user's: they never count.
 * Hooks and MCP entries name the launcher by its absolute path, so they never depend on PATH or cwd.
 * Design: docs/design.md §7.
 */
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { userPathEntries } from "../base/how-to-run.js";
import { packageRoot } from "../base/paths.js";
import type { PlannedFile } from "./managed-files.js";
import { readText } from "./managed-files.js";

export const quote = (value: string): string =>
  /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;

export const vigilBin = () => join(packageRoot, "bin", "vigil.js");

export function launcherText(node = process.execPath, bin = vigilBin()): string {
  return `#!/bin/sh\n# Written by \`vigil setup\`: runs this machine's Vigil.\nexec ${quote(node)} ${quote(bin)} "$@"\n`;
}

/** The text is the launcher `vigil setup` writes. */
export const isLauncher = (text: string | null): boolean => text?.includes("Written by `vigil setup`") ?? false;

export interface LauncherPlan {
  /** The absolute path hooks and MCP entries run. */
  path: string;
  file: PlannedFile | null;
  /** One line for the user: how `vigil` is reachable. */
  note: string;
}

const realpath = (path: string) => {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
};

/** Where `vigil` resolves on the user's own PATH now, if it is this checkout's bin. */
function onPathAlready(env: NodeJS.ProcessEnv): string | null {
  const bin = realpath(vigilBin());
  for (const dir of userPathEntries(env)) {
    const candidate = join(dir, "vigil");
    if (bin !== null && realpath(candidate) === bin) return candidate;
  }
  return null;
}

export function planLauncher(env: NodeJS.ProcessEnv = process.env, remove = false): LauncherPlan {
  const path = join(homedir(), ".local", "bin", "vigil");
  const existing = readText(path);
  const ours = isLauncher(existing);
  if (remove) {
    return {
      path,
      file: ours ? { path, before: existing, after: null } : null,
      note: ours ? `removes the launcher ${path}` : "",
    };
  }
  const found = onPathAlready(env);
  if (found && !ours) return { path: found, file: null, note: `vigil is on PATH already: ${found}` };
  if (existing !== null && !ours) {
    // Someone else's file of that name: leave it, and point the hooks at this checkout's bin.
    return { path: vigilBin(), file: null, note: `${path} is not Vigil's launcher; hooks run ${vigilBin()}` };
  }
  const dirs = userPathEntries(env);
  const onPath = dirs.includes(join(homedir(), ".local", "bin"));
  return {
    path,
    file: { path, before: existing, after: launcherText(), mode: 0o755 },
    note: onPath
      ? `vigil is callable by name: ${path}`
      : `wrote ${path}; new login shells have ~/.local/bin on PATH (setup adds it to your shell profiles): open a new terminal to type \`vigil\``,
  };
}
