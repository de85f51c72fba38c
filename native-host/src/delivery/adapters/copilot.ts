/**
 * The `copilot` adapter (GitHub Copilot CLI): never two writers on one session. While the Copilot
 * process that opened the session (its pid and start time, recorded by the sessionStart hook) is
 * alive, the daemon holds the wakes for the session's own hooks (agentStop, userPromptSubmitted);
 * once it is gone it resumes the session headless — `copilot --resume=<id> --output-format json`,
 * the wake on stdin — and counts it delivered only when Copilot exits 0 with a `result` event
 * naming the same session and exit code 0.
 * Design: docs/design.md §6.
 */
import type { Adapter } from "../../../../shared/schemas/inputs.js";
import { loadExeca } from "../../base/lazy-execa.js";
import { processStart } from "../../base/process-start.js";
import type { PushAdapter } from "./adapter.js";
import { DEFAULT_AGENT_TIMEOUT_SECONDS, type Resume, runResume } from "./agent.js";

type CopilotAdapter = Extract<Adapter, { kind: "copilot" }>;

export function copilotResume(adapter: CopilotAdapter, sessionId: string): Resume {
  return {
    // `--resume=<id>`: the option's value is optional; attached, it can never be taken for anything else.
    argv: [
      adapter.program ?? "copilot",
      `--resume=${sessionId}`,
      "--output-format",
      "json",
      ...(adapter.resumeArgs ?? []),
    ],
    env: adapter.configDir ? { COPILOT_HOME: adapter.configDir } : {},
    check: checkCopilotResult,
  };
}

/** `--output-format json` prints one event per line and ends with `{type: "result", sessionId, exitCode}`. */
export function checkCopilotResult(stdout: string, sessionId: string): string | null {
  const events = stdout.split("\n").flatMap((line) => {
    try {
      return [JSON.parse(line) as { type?: string; sessionId?: string; exitCode?: number }];
    } catch {
      return [];
    }
  });
  const result = events.findLast((event) => event.type === "result");
  if (!result) return "copilot printed no result event";
  if (result.sessionId !== sessionId)
    return `copilot answered for session ${result.sessionId ?? "none"}, not ${sessionId}`;
  if (result.exitCode !== 0) return `copilot reported exit code ${result.exitCode ?? "none"} in its result`;
  return null;
}

/** Is the Copilot process that opened the session still that process (not a recycled pid)? */
export function isCopilotOpen(adapter: CopilotAdapter): boolean {
  if (!adapter.pid) return false;
  const start = processStart(adapter.pid);
  // The start time recorded with the pid must match: a recycled pid is not the agent.
  return start !== null && start === adapter.pidStart;
}

export const copilotAdapter: PushAdapter<CopilotAdapter> = {
  kind: "copilot",
  timeoutMs: (adapter) => (adapter.timeoutSeconds ?? DEFAULT_AGENT_TIMEOUT_SECONDS) * 1000,
  async prepare() {
    await loadExeca();
  },
  heldBy: (adapter) =>
    isCopilotOpen(adapter)
      ? `waiting for the open Copilot CLI session (pid ${adapter.pid}) to take it through its hooks`
      : null,
  deliver: (adapter, turn, context) =>
    runResume(copilotResume(adapter, turn.sessionId), "copilot --resume", adapter, turn, context.cwd, context.signal),
};
