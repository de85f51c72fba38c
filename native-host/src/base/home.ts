/**
 * $VIGIL_HOME's files, kept light: the CLI reads them on every call without loading the engine.
 * Design: docs/design.md §1.
 */

import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type HomePaths, homePaths } from "./paths.js";
import { socketRequest } from "./socket-request.js";

export const DEFAULT_PORT = 7391;

export interface DaemonInfo {
  pid: number;
  port: number;
  /** The TCP address: /healthz and /webhook/signal (the whole API only with the tcpApi setting). */
  url: string;
  /** The owner-only Unix socket every same-user client calls (absent in files of older daemons). */
  socket?: string;
}

export function ensureHome(home: string): HomePaths {
  const paths = homePaths(home);
  mkdirSync(paths.spool, { recursive: true, mode: 0o700 });
  chmodSync(home, 0o700);
  return paths;
}

/**
 * Private files stay private: at every daemon start the modes are put back (a token or spool made
 * readable by someone's `chmod -R` is corrected, not trusted).
 */
export function tightenHome(paths: HomePaths): void {
  const folders = [paths.home, join(paths.home, "tmp"), paths.spool, join(paths.spool, "bad")];
  const files = [
    paths.token,
    paths.daemonJson,
    paths.log,
    join(paths.home, "vault.json"),
    paths.apiSocket,
    paths.hostKey,
  ];
  for (const [list, mode] of [
    [folders, 0o700],
    [files, 0o600],
  ] as const) {
    for (const path of list) if (existsSync(path)) chmodSync(path, mode);
  }
}

/** The API token: created once (0600), then read. */
export function ensureToken(paths: HomePaths): string {
  if (!existsSync(paths.token)) {
    writeFileSync(paths.token, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600, flag: "wx" });
  }
  return readFileSync(paths.token, "utf8").trim();
}

/** Bytes in a host key (HMAC-SHA256's block is 64; 32 is its output and ample). */
export const HOST_KEY_BYTES = 32;

/**
 * This host's sealing key (engine/seals.ts): made once (0600, never replaced: a new key would
 * refuse every row the old one sealed), then read. A file of another length is refused, naming it.
 */
export function ensureHostKey(paths: HomePaths): Buffer {
  if (!existsSync(paths.hostKey)) {
    writeFileSync(paths.hostKey, randomBytes(HOST_KEY_BYTES), { mode: 0o600, flag: "wx" });
  }
  const key = readFileSync(paths.hostKey);
  if (key.length !== HOST_KEY_BYTES) {
    throw new Error(
      `Expected ${paths.hostKey} to hold ${HOST_KEY_BYTES} bytes (this host's sealing key), got ${key.length}`,
    );
  }
  return key;
}

export function readDaemonInfo(paths: HomePaths): DaemonInfo | null {
  try {
    return JSON.parse(readFileSync(paths.daemonJson, "utf8")) as DaemonInfo;
  } catch {
    return null;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a daemon answers on this home's owner-only socket. Asked there and never on the TCP port
 * daemon.json names: after an unclean stop another user may hold that port (design.md §8).
 */
export async function answers(paths: HomePaths, timeoutMs = 1000): Promise<boolean> {
  try {
    const reply = await socketRequest({ socketPath: paths.apiSocket, method: "GET", path: "/healthz", timeoutMs });
    return reply.status === 200;
  } catch {
    return false;
  }
}
