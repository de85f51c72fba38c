/**
 * A temporary HOME for the `vigil setup` tests (design.md §6): before each test a fresh HOME and
 * Vigil home, and an environment with none of the agents' own variables and a plain PATH; after
 * each, the daemon setup started is stopped and both are removed.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { waitFor } from "./daemon.js";

export interface SetupHome {
  home: string;
  vigilHome: string;
  env: Record<string, string>;
}

/** What an agent sets that would point setup (or a `vigil` call) somewhere other than this HOME. */
const AGENT_VARIABLES = [
  "CLAUDE_CONFIG_DIR",
  "CLAUDE_CODE_SESSION_ID",
  "CODEX_HOME",
  "CODEX_THREAD_ID",
  "GEMINI_CLI_HOME",
  "GEMINI_CLI",
  "COPILOT_HOME",
  "COPILOT_AGENT_SESSION_ID",
  "VIGIL_HOME",
];

/** Registers the hooks; `onReady` gets each test's homes and environment. */
export function useSetupHome(prefix: string, onReady: (setupHome: SetupHome) => void): void {
  let vigilHome = "";
  let root = "";
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), prefix));
    const home = join(root, "home");
    vigilHome = join(root, "vigil");
    mkdirSync(home);
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      HOME: home,
      PATH: "/usr/bin:/bin",
    };
    for (const name of AGENT_VARIABLES) delete env[name];
    onReady({ home, vigilHome, env });
  });
  afterEach(async () => {
    try {
      const { pid } = JSON.parse(readFileSync(join(vigilHome, "daemon.json"), "utf8"));
      process.kill(pid, "SIGTERM");
      await waitFor(() => !existsSync(join(vigilHome, "daemon.json")), { what: "the daemon to stop" });
    } catch {
      // none started
    }
    rmSync(root, { recursive: true, force: true });
  });
}

/** A file's text, or null when there is none. */
export const readIfThere = (path: string): string | null => (existsSync(path) ? readFileSync(path, "utf8") : null);
