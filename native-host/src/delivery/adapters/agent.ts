/**
 * `claude` and `codex` adapters: never two writers on one session. While the agent's process is
 * alive the daemon holds the wakes for the session's own hooks (Stop, prompt, background rewake),
 * which take them in-session — except a Codex thread held by Codex's app-server (an open TUI, or
 * one just closed), which takes them through Codex's own queue (codex-live.ts); once nothing holds
 * the session it resumes it headless in its own folder with the turn's text on stdin, and counts it
 * delivered only when the agent exits 0 and names the same session.
 * Design: docs/design.md §6.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import type { Adapter } from "../../../../shared/schemas/inputs.js";
import { withoutAgentSession } from "../../base/config.js";
import { loadExeca } from "../../base/lazy-execa.js";
import { killProcessGroup } from "../../probes/run-shell.js";
import type { DeliveryOutcome, PushAdapter, Turn } from "./adapter.js";
import { tail, turnText } from "./adapter.js";
import { isAgentAlive } from "./agent-liveness.js";
import { codexHeldBy, deliverThroughCodexQueue } from "./codex-live.js";
import { lastLines, whyNotStarted } from "./run-failure.js";

type AgentAdapter = Extract<Adapter, { kind: "claude" | "codex" }>;

export const DEFAULT_AGENT_TIMEOUT_SECONDS = 1800;

/** How one agent resumes a closed session headless (each agent's file makes its own). */
export interface Resume {
  argv: string[];
  env: Record<string, string>;
  /** Did the agent's output name this session and report no error? */
  check(stdout: string, sessionId: string): string | null;
}

function claudeResume(adapter: AgentAdapter, sessionId: string): Resume {
  return {
    argv: [
      adapter.program ?? "claude",
      "--resume",
      sessionId,
      "-p",
      "--output-format",
      "json",
      ...(adapter.resumeArgs ?? []),
    ],
    env: adapter.configDir ? { CLAUDE_CONFIG_DIR: adapter.configDir } : {},
    check(stdout, sid) {
      let result: { session_id?: string; is_error?: boolean; subtype?: string };
      try {
        result = JSON.parse(stdout.trim().split("\n").at(-1) ?? "");
      } catch {
        return "claude printed no JSON result";
      }
      if (result.is_error) return `claude reported an error (${result.subtype ?? "is_error"})`;
      if (result.session_id !== sid) return `claude answered for session ${result.session_id ?? "none"}, not ${sid}`;
      return null;
    },
  };
}

function codexResume(adapter: AgentAdapter, sessionId: string): Resume {
  return {
    argv: [
      adapter.program ?? "codex",
      "exec",
      "--json",
      "--skip-git-repo-check",
      ...(adapter.resumeArgs ?? []),
      "resume",
      sessionId,
      "-",
    ],
    env: adapter.configDir ? { CODEX_HOME: adapter.configDir } : {},
    check(stdout, sid) {
      const events = stdout.split("\n").flatMap((line) => {
        try {
          return [JSON.parse(line) as { type?: string; thread_id?: string }];
        } catch {
          return [];
        }
      });
      const ids = events.flatMap((event) =>
        event.type === "thread.started" && event.thread_id ? [event.thread_id] : [],
      );
      if (ids.length === 0) return "codex printed no thread.started event";
      if (!ids.includes(sid)) return `codex answered for thread ${ids[0]}, not ${sid}`;
      // A top-level "error" event may be a stream retry ("Reconnecting… 1/5"); the turn decides.
      if (events.some((event) => event.type === "turn.failed")) return "codex reported a failed turn";
      if (!events.some((event) => event.type === "turn.completed")) return "codex completed no turn";
      return null;
    },
  };
}

/**
 * Runs `plan` in the session's folder with the turn's text on stdin; `name` says which resume it
 * was in errors and in `deliveredVia`.
 */
export async function runResume(
  plan: Resume,
  name: string,
  adapter: { timeoutSeconds?: number },
  turn: Turn,
  cwd: string,
  signal: AbortSignal,
): Promise<DeliveryOutcome> {
  const [program, ...args] = plan.argv;
  const execa = await loadExeca();
  const subprocess = execa(program as string, args, {
    cwd,
    input: turnText(turn),
    env: { ...withoutAgentSession(process.env), ...plan.env, VIGIL_SESSION: turn.sessionId },
    extendEnv: false,
    detached: true,
    reject: false,
    maxBuffer: 10_000_000,
  });
  const timeoutMs = (adapter.timeoutSeconds ?? DEFAULT_AGENT_TIMEOUT_SECONDS) * 1000;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killProcessGroup(subprocess);
  }, timeoutMs);
  const abort = () => killProcessGroup(subprocess);
  signal.addEventListener("abort", abort, { once: true });
  const result = await subprocess;
  clearTimeout(timer);
  signal.removeEventListener("abort", abort);
  const stdout = typeof result.stdout === "string" ? result.stdout : "";
  const stderr = typeof result.stderr === "string" ? result.stderr : "";
  const output = tail([stdout, stderr].filter(Boolean).join("\n")) || null;
  if (timedOut)
    return { ok: false, retry: true, error: `${name} ran over ${timeoutMs / 1000}s and was killed`, output };
  if (result.exitCode === undefined) {
    // The cause first (a session folder that is gone, a program not there), execa's account after.
    const why = whyNotStarted(result, program as string, cwd);
    return { ok: false, retry: true, error: `${name} could not run: ${why}\n${result.shortMessage}`, output };
  }
  if (result.exitCode !== 0) {
    const reached = stdout.includes(turn.sessionId);
    const said = lastLines(stderr);
    return {
      ok: false,
      retry: !reached,
      error: `${name} exited with code ${result.exitCode}${said ? `: ${said}` : " and wrote nothing on stderr"}`,
      output,
    };
  }
  const problem = plan.check(stdout, turn.sessionId);
  // The agent ran on this session and may have read the wake: a person decides, not a blind retry.
  const reached = stdout.includes(turn.sessionId);
  if (problem) return { ok: false, retry: !reached, error: problem, output };
  return { ok: true, output, via: `${name} (headless)` };
}

function agentAdapter(kind: AgentAdapter["kind"]): PushAdapter<AgentAdapter> {
  return {
    kind,
    timeoutMs: (adapter) => (adapter.timeoutSeconds ?? DEFAULT_AGENT_TIMEOUT_SECONDS) * 1000,
    async prepare() {
      await loadExeca();
    },
    heldBy(adapter, sessionId) {
      if (kind === "claude") {
        const configDir = adapter.configDir ?? process.env.CLAUDE_CONFIG_DIR ?? join(homedir(), ".claude");
        return isAgentAlive(adapter.pid, "claude", { started: adapter.pidStart, configDir })
          ? `waiting for the open Claude Code session (pid ${adapter.pid}) to take it through its hooks`
          : null;
      }
      return codexHeldBy(adapter as Extract<AgentAdapter, { kind: "codex" }>, sessionId);
    },
    async deliver(adapter, turn, context) {
      if (adapter.kind === "codex") {
        // The thread's app-server (an open TUI, or one just closed) takes it through Codex's queue.
        const timeoutMs = (adapter.timeoutSeconds ?? DEFAULT_AGENT_TIMEOUT_SECONDS) * 1000;
        const live = await deliverThroughCodexQueue(adapter, turn, context, timeoutMs);
        if (live) return live;
      }
      return kind === "claude"
        ? runResume(
            claudeResume(adapter, turn.sessionId),
            "claude --resume",
            adapter,
            turn,
            context.cwd,
            context.signal,
          )
        : runResume(
            codexResume(adapter, turn.sessionId),
            "codex exec resume",
            adapter,
            turn,
            context.cwd,
            context.signal,
          );
    },
  };
}

export const claudeAdapter = agentAdapter("claude");
export const codexAdapter = agentAdapter("codex");
