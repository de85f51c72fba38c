/**
 * `vigil setup opencode`: one plugin file in OpenCode's global plugin folder
 * (`~/.config/opencode/plugin/vigil.js`, or under $OPENCODE_CONFIG_DIR / $XDG_CONFIG_HOME), wholly
 * Vigil's, so nothing of the user's is rewritten and --remove deletes it. OpenCode loads it into
 * its own process, where it:
 *   - binds each new session to the Vigil session of the same id (`vigil hook opencode
 *     session-start`; the hook records the OpenCode process and its start time);
 *   - gives the shell tool `OPENCODE_SESSION_ID`, so `vigil wait …` there binds to the session;
 *   - when a session goes idle, and when a wake becomes ready while it is idle (a background
 *     long-poll per session), takes the ready wakes (`vigil hook opencode idle`) and prompts the
 *     session with them through OpenCode's own API (`client.session.promptAsync`).
 * Design: docs/design.md §6, §7.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import type { PlannedFile } from "./managed-files.js";

export interface OpencodePaths {
  configDir: string;
  plugin: string;
}

export function opencodePaths(env: NodeJS.ProcessEnv = process.env): OpencodePaths {
  const configDir = env.OPENCODE_CONFIG_DIR || join(env.XDG_CONFIG_HOME || join(homedir(), ".config"), "opencode");
  return { configDir, plugin: join(configDir, "plugin", "vigil.js") };
}

/** The plugin, with the launcher (and a non-default Vigil home) written in. */
export function opencodePlugin(launcher: string, vigilHome: string | null): string {
  const argv = [launcher, ...(vigilHome ? ["--home", vigilHome] : []), "hook", "opencode"];
  return `// Written by \`vigil setup opencode\`; \`vigil setup opencode --remove\` deletes it.
// It binds OpenCode sessions to Vigil and prompts an idle session with its wakes (Vigil's docs/agents.md, "Use with OpenCode").
import { spawn } from "node:child_process";

const HOOK = ${JSON.stringify(argv)};

/** Runs \`vigil hook opencode <event>\` with the JSON on stdin; resolves to its stdout. */
function hook(event, input, signal) {
  return new Promise((resolve) => {
    let out = "";
    const child = spawn(HOOK[0], [...HOOK.slice(1), event], { stdio: ["pipe", "pipe", "inherit"], signal });
    child.stdout.on("data", (chunk) => (out += chunk));
    child.on("error", () => resolve(""));
    child.on("close", () => resolve(out));
    child.stdin.end(JSON.stringify(input));
  });
}

export const VigilPlugin = async ({ client, directory }) => {
  // \`opencode run\` ends with its turn: a wake claimed as it goes idle would be lost with it. Its
  // wakes stay ready, and Vigil resumes the session once this process is gone.
  const oneShot = process.argv.includes("run");
  const bound = new Set();
  const idle = new Set();
  const waiters = new Map();
  const deliver = async (sessionID) => {
    if (oneShot || !idle.has(sessionID)) return;
    const answer = await hook("idle", { session_id: sessionID, cwd: directory });
    let text = "";
    try {
      text = JSON.parse(answer || "{}").text ?? "";
    } catch {}
    if (!text) return;
    idle.delete(sessionID);
    await client.session.promptAsync({ path: { id: sessionID }, body: { parts: [{ type: "text", text }] } });
  };
  /** While the session is idle, wait for a wake to become ready (takes nothing), then deliver. */
  const wait = (sessionID) => {
    if (oneShot || waiters.has(sessionID)) return;
    const controller = new AbortController();
    waiters.set(sessionID, controller);
    (async () => {
      while (idle.has(sessionID) && !controller.signal.aborted) {
        const answer = await hook("ready", { session_id: sessionID, cwd: directory }, controller.signal);
        let ready = 0;
        try {
          ready = JSON.parse(answer || "{}").ready ?? 0;
        } catch {}
        if (ready > 0) await deliver(sessionID);
        else if (!answer) await new Promise((r) => setTimeout(r, 5000));
      }
      waiters.delete(sessionID);
    })();
  };
  return {
    "shell.env": async (input, output) => {
      if (input.sessionID) output.env.OPENCODE_SESSION_ID = input.sessionID;
    },
    event: async ({ event }) => {
      const sessionID = event.properties?.sessionID;
      if (!sessionID) return;
      // Bound by the first event of the session in this process: new, resumed or reopened.
      if (!bound.has(sessionID)) {
        bound.add(sessionID);
        await hook("session-start", { session_id: sessionID, cwd: directory });
      }
      if (event.type === "session.status" && event.properties.status?.type === "busy") {
        idle.delete(sessionID);
        waiters.get(sessionID)?.abort();
      } else if (event.type === "session.idle") {
        idle.add(sessionID);
        await deliver(sessionID);
        wait(sessionID);
      }
    },
  };
};
`;
}

export function planOpencode(
  paths: OpencodePaths,
  current: { plugin: string | null },
  launcher: string,
  vigilHome: string | null,
): PlannedFile[] {
  return [{ path: paths.plugin, before: current.plugin, after: opencodePlugin(launcher, vigilHome), mode: 0o644 }];
}

export const isOpencodeSetUp = (text: string | null) => (text ?? "").includes("vigil setup opencode");
