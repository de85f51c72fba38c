/**
 * Where things live: the package (for migrations and fixtures) and the user's $VIGIL_HOME.
 * Design: docs/design.md §1.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { envConfig } from "./config.js";

function findPackageRoot(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`Expected a package.json above ${from}, found none`);
    dir = parent;
  }
  return dir;
}

/** The checkout or installed package root (works from `dist/` and from the TypeScript sources). */
export const packageRoot = findPackageRoot(dirname(fileURLToPath(import.meta.url)));
export const sourceDir = join(packageRoot, "native-host", "src");

/** This checkout's package version. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as { version: string }).version;
}

export function resolveHome(flag?: string): string {
  return resolve(flag ?? envConfig().VIGIL_HOME ?? join(homedir(), ".vigil"));
}

export interface HomePaths {
  home: string;
  db: string;
  token: string;
  daemonJson: string;
  log: string;
  spool: string;
  /** The user-only socket `vigil native-host` connects to (design.md §1). */
  browserSocket: string;
  /** The user-only socket every same-user client (CLI, hooks, `vigil mcp`, the bridge) calls the API on (design.md §8). */
  apiSocket: string;
  /** This host's sealing key: 32 random bytes, 0600, made at the first start (engine/seals.ts). */
  hostKey: string;
}

export function homePaths(home: string): HomePaths {
  return {
    home,
    db: join(home, "vigil.db"),
    token: join(home, "token"),
    daemonJson: join(home, "daemon.json"),
    log: join(home, "vigil.log"),
    spool: join(home, "tmp", "signals"),
    browserSocket: join(home, "browser.sock"),
    apiSocket: join(home, "api.sock"),
    hostKey: join(home, "host.key"),
  };
}
