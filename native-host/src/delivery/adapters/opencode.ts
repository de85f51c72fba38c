/**
 * The `opencode` adapter: never two writers on one session. While the OpenCode process that opened
 * the session (pid and start time, recorded by Vigil's plugin) is alive, the daemon holds the wakes
 * for the plugin, which prompts the idle session with them through OpenCode's own API; once that
 * process is gone it resumes the session headless — `opencode run --session <id> --format json`, the
 * wake on stdin — and counts it delivered only when OpenCode exits 0 having finished a step of that
 * session with no error event.
 * Design: docs/design.md §6.
 */
import type { Adapter } from "../../../../shared/schemas/inputs.js";
import { loadExeca } from "../../base/lazy-execa.js";
import { processStart } from "../../base/process-start.js";
import type { PushAdapter } from "./adapter.js";
import { DEFAULT_AGENT_TIMEOUT_SECONDS, type Resume, runResume } from "./agent.js";

type OpencodeAdapter = Extract<Adapter, { kind: "opencode" }>;

/**
 * `cwd` is the session's folder, given as `PWD` too: OpenCode takes its project from `PWD` (not the
 * process's working folder), and a run in another project than the session's never sees the
 * session go idle, so it never exits (the daemon's own `PWD` is wherever it was started).
 */
export function opencodeResume(adapter: OpencodeAdapter, sessionId: string, cwd: string): Resume {
  return {
    argv: [
      adapter.program ?? "opencode",
      "run",
      "--session",
      sessionId,
      "--format",
      "json",
      ...(adapter.resumeArgs ?? []),
    ],
    env: { PWD: cwd, ...(adapter.configDir ? { OPENCODE_CONFIG_DIR: adapter.configDir } : {}) },
    check: checkOpencodeEvents,
  };
}

/** `--format json` prints one event per line: `{type, sessionID, part}`; a finished turn ends with a step_finish "stop". */
export function checkOpencodeEvents(stdout: string, sessionId: string): string | null {
  const events = stdout.split("\n").flatMap((line) => {
    try {
      return [JSON.parse(line) as { type?: string; sessionID?: string; part?: { reason?: string } }];
    } catch {
      return [];
    }
  });
  const sessions = [...new Set(events.flatMap((event) => (event.sessionID ? [event.sessionID] : [])))];
  if (sessions.length === 0) return "opencode printed no event of a session";
  if (!sessions.includes(sessionId)) return `opencode answered for session ${sessions[0]}, not ${sessionId}`;
  if (events.some((event) => event.type === "error")) return "opencode reported an error";
  if (!events.some((event) => event.type === "step_finish" && event.part?.reason === "stop"))
    return "opencode finished no turn";
  return null;
}

export const isOpencodeOpen = (adapter: OpencodeAdapter): boolean =>
  Boolean(adapter.pid) && processStart(adapter.pid as number) === (adapter.pidStart ?? null);

export const opencodeAdapter: PushAdapter<OpencodeAdapter> = {
  kind: "opencode",
  timeoutMs: (adapter) => (adapter.timeoutSeconds ?? DEFAULT_AGENT_TIMEOUT_SECONDS) * 1000,
  async prepare() {
    await loadExeca();
  },
  heldBy: (adapter) =>
    isOpencodeOpen(adapter)
      ? `waiting for the open OpenCode session (pid ${adapter.pid}) to take it through Vigil's plugin`
      : null,
  deliver: (adapter, turn, context) =>
    runResume(
      opencodeResume(adapter, turn.sessionId, context.cwd),
      "opencode run --session",
      adapter,
      turn,
      context.cwd,
      context.signal,
    ),
};
