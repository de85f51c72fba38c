/**
 * The `gemini` adapter (Gemini CLI): never two writers on one session. While the Gemini process
 * that opened the session (its pid and start time, recorded by the SessionStart hook) is alive, the
 * daemon holds the wakes for the session's own hooks (AfterAgent, BeforeAgent); once it is gone it
 * resumes the session headless — `gemini --resume <id> --output-format json`, the wake on stdin — and
 * counts it delivered only when Gemini exits 0 naming the same session with no error.
 * Design: docs/design.md §6.
 */
import type { Adapter } from "../../../../shared/schemas/inputs.js";
import { loadExeca } from "../../base/lazy-execa.js";
import { processStart } from "../../base/process-start.js";
import type { PushAdapter } from "./adapter.js";
import { DEFAULT_AGENT_TIMEOUT_SECONDS, type Resume, runResume } from "./agent.js";

type GeminiAdapter = Extract<Adapter, { kind: "gemini" }>;

export function geminiResume(adapter: GeminiAdapter, sessionId: string): Resume {
  return {
    argv: [
      adapter.program ?? "gemini",
      "--resume",
      sessionId,
      "--output-format",
      "json",
      ...(adapter.resumeArgs ?? []),
    ],
    env: adapter.configDir ? { GEMINI_CLI_HOME: adapter.configDir } : {},
    check: checkGeminiResult,
  };
}

/** `--output-format json` prints one JSON object: `{session_id, response, stats, error?}`. */
export function checkGeminiResult(stdout: string, sessionId: string): string | null {
  const start = stdout.indexOf("{");
  let result: { session_id?: string; error?: { message?: string } | null };
  try {
    result = JSON.parse(start === -1 ? "" : stdout.slice(start));
  } catch {
    return "gemini printed no JSON result";
  }
  if (result.error) return `gemini reported an error (${result.error.message ?? "error"})`;
  if (result.session_id !== sessionId)
    return `gemini answered for session ${result.session_id ?? "none"}, not ${sessionId}`;
  return null;
}

/** Is the Gemini process that opened the session still that process (not a recycled pid)? */
export function isGeminiOpen(adapter: GeminiAdapter): boolean {
  if (!adapter.pid) return false;
  const start = processStart(adapter.pid);
  // The start time recorded with the pid must match: a recycled pid is not the agent.
  return start !== null && start === adapter.pidStart;
}

export const geminiAdapter: PushAdapter<GeminiAdapter> = {
  kind: "gemini",
  timeoutMs: (adapter) => (adapter.timeoutSeconds ?? DEFAULT_AGENT_TIMEOUT_SECONDS) * 1000,
  async prepare() {
    await loadExeca();
  },
  heldBy: (adapter) =>
    isGeminiOpen(adapter)
      ? `waiting for the open Gemini CLI session (pid ${adapter.pid}) to take it through its hooks`
      : null,
  deliver: (adapter, turn, context) =>
    runResume(geminiResume(adapter, turn.sessionId), "gemini --resume", adapter, turn, context.cwd, context.signal),
};
