/**
 * Starting the daemon for a client that needs one (`vigil mcp`, the native-messaging bridge):
 * detached (it logs to $VIGIL_HOME/vigil.log itself), and wait until it answers on its owner-only
 * socket (never on the TCP port: after an unclean stop someone else may hold it).
 * Design: docs/design.md §1.
 */
import { spawn } from "node:child_process";
import { homedir } from "node:os";
import { join } from "node:path";
import { envConfig, withoutAgentSession } from "./base/config.js";
import { answers, DEFAULT_PORT, ensureHome, readDaemonInfo } from "./base/home.js";
import { packageRoot } from "./base/paths.js";

export async function ensureDaemon(home: string, { timeoutMs = 15_000 } = {}): Promise<string> {
  const paths = ensureHome(home);
  const running = readDaemonInfo(paths);
  if (running && (await answers(paths))) return running.url;
  // The default home gets the default port; any other home takes a free one.
  const port = home === join(homedir(), ".vigil") ? String(envConfig().VIGIL_PORT ?? DEFAULT_PORT) : "0";
  const child = spawn(
    process.execPath,
    [join(packageRoot, "bin", "vigil.js"), "--home", home, "serve", "--port", port],
    {
      detached: true,
      stdio: "ignore",
      env: { ...withoutAgentSession(process.env), VIGIL_HOME: home },
    },
  );
  child.unref();
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const info = readDaemonInfo(paths);
    if (info && info.pid === child.pid && (await answers(paths))) return info.url;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(
    `Started the Vigil daemon for ${home}, but it did not answer within ${timeoutMs / 1000}s (see ${paths.log})`,
  );
}
