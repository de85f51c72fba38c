/**
 * `vigil hook copilot <event>`: what GitHub Copilot CLI's hooks run (written by `vigil setup
 * copilot`). Each reads the hook's JSON on stdin (`{sessionId, cwd, …}`) and answers on stdout in
 * Copilot's hook format:
 *   session-start  binds the Copilot session to the Vigil session of the same id (folder, the
 *                  Copilot process and its start time, transcript) and tells the model Vigil is
 *                  here (`additionalContext`); the shell tool names the session itself
 *                  (COPILOT_AGENT_SESSION_ID), so `vigil wait …` there binds to it;
 *   prompt         (userPromptSubmitted) hands ready wakes to the turn as additional context;
 *   stop           (agentStop) hands ready wakes over by blocking: Copilot goes on with the reason
 *                  as a new user message (only when this agentStop is not already such a
 *                  continuation);
 *   session-end    forgets the process: later wakes resume the session headless.
 * The hook's claim leases the wakes; each counts delivered once its tag shows in the session's
 * events.jsonl.
 * Design: docs/design.md §6.
 */
import { basename, join } from "node:path";
import { z } from "zod";
import type { Adapter } from "../../../shared/schemas/inputs.js";
import { ApiClient } from "../api/client.js";
import { type AgentProcess, agentAncestor, runs } from "../base/agent-process.js";
import { ensureDaemon } from "../daemon-launch.js";
import { copilotPaths } from "../install/copilot.js";
import { printJson } from "./context.js";
import { handoverText, parseHookJson, sessionNote } from "./hook-input.js";

export const COPILOT_EVENTS = ["session-start", "prompt", "stop", "session-end"] as const;
export type CopilotEvent = (typeof COPILOT_EVENTS)[number];

const InputSchema = z.looseObject({
  sessionId: z.string().min(1).max(128),
  cwd: z.string().optional(),
  transcriptPath: z.string().nullish(),
  stop_hook_active: z.boolean().optional(),
});
type Input = z.infer<typeof InputSchema>;

/** The Copilot process that runs this hook (the nearest ancestor running `copilot`). */
export const copilotProcess = (): AgentProcess | null => agentAncestor(runs("copilot"));

/** Where Copilot CLI writes the session's events (the transcript a handed-over wake shows in). */
export const copilotTranscript = (sessionId: string, env: NodeJS.ProcessEnv = process.env): string =>
  join(copilotPaths(env).home, "session-state", sessionId, "events.jsonl");

function copilotAdapter(input: Input, current: Adapter, agent: AgentProcess | null, live: boolean): Adapter {
  const keep = current.kind === "copilot" ? current : { kind: "copilot" as const };
  const { pid: recorded, pidStart: recordedStart, ...rest } = keep as Adapter & { pid?: number; pidStart?: string };
  // Ending: forget the pid only if it is this process's — a headless resume ending must not forget a
  // terminal that opened the session meanwhile.
  const own = agent?.pid;
  const pid = live ? own : recorded !== own ? recorded : undefined;
  const pidStart = live ? agent?.start : pid === recorded ? recordedStart : undefined;
  const configDir = process.env.COPILOT_HOME;
  return {
    ...rest,
    kind: "copilot",
    ...(pid ? { pid } : {}),
    ...(pid && pidStart ? { pidStart } : {}),
    ...(configDir ? { configDir } : {}),
    transcriptPath: input.transcriptPath || copilotTranscript(input.sessionId),
  } as Adapter;
}

export async function runCopilotHook(event: CopilotEvent, stdin: string, home: string): Promise<void> {
  const input = parseHookJson(stdin, InputSchema, "sessionId");
  const sid = input.sessionId;
  if (event === "session-start" || event === "session-end") {
    const live = event === "session-start";
    if (live) await ensureDaemon(home);
    const api = new ApiClient(home);
    const agent = copilotProcess();
    const cwd = input.cwd ?? process.cwd();
    const session = await api.call("createSession", {
      body: { id: sid, root: cwd, label: `Copilot CLI · ${basename(cwd)}` },
    });
    // A session the user pointed elsewhere (a webhook, a command) keeps its adapter.
    if (["inbox", "mcp", "copilot"].includes(session.adapter.kind)) {
      await api.call("updateSession", {
        params: { sid },
        body: { adapter: copilotAdapter(input, session.adapter, agent, live) },
      });
    }
    if (live) printJson({ additionalContext: sessionNote("Copilot CLI", sid) }, undefined);
    return;
  }
  // A continuation's agentStop: the wakes went in with the block that started it.
  if (event === "stop" && input.stop_hook_active) return;
  const api = new ApiClient(home);
  const { wakes } = await api.call("claimWakes", { params: { sid }, query: { wait: 0, via: `copilot-${event}` } });
  if (wakes.length === 0) return;
  const text = handoverText(wakes);
  if (event === "stop") printJson({ decision: "block", reason: text }, undefined);
  else printJson({ additionalContext: text }, undefined);
}
