/**
 * `vigil hook gemini <event>`: what Gemini CLI's hooks run (written by `vigil setup gemini`). Each
 * reads the hook's JSON on stdin and answers on stdout in Gemini's hook format:
 *   session-start  binds the Gemini session to the Vigil session of the same id (folder, the Gemini
 *                  process and its start time, transcript), records that process's session so a
 *                  `vigil` call from its shell tool binds to it, and tells the model Vigil is here;
 *   prompt         (BeforeAgent) hands ready wakes to the turn as additional context;
 *   stop           (AfterAgent) hands ready wakes over by blocking: Gemini goes on with them as a
 *                  new message in the same turn (only when this AfterAgent is not already such a
 *                  continuation);
 *   session-end    forgets the process: later wakes resume the session headless.
 * The hook's claim leases the wakes; each counts delivered once its tag shows in the transcript.
 * Design: docs/design.md §6.
 */
import { basename } from "node:path";
import { z } from "zod";
import type { Adapter } from "../../../shared/schemas/inputs.js";
import { ApiClient } from "../api/client.js";
import { type AgentProcess, agentAncestor, dropBinding, recordBinding, runs } from "../base/agent-process.js";
import { ensureDaemon } from "../daemon-launch.js";
import { printJson } from "./context.js";
import { handoverText, parseHookJson, sessionNote } from "./hook-input.js";

export const GEMINI_EVENTS = ["session-start", "prompt", "stop", "session-end"] as const;
export type GeminiEvent = (typeof GEMINI_EVENTS)[number];

const InputSchema = z.looseObject({
  session_id: z.string().min(1).max(128),
  cwd: z.string().optional(),
  transcript_path: z.string().nullish(),
  stop_hook_active: z.boolean().optional(),
});
type Input = z.infer<typeof InputSchema>;

/** The Gemini process that runs this hook (the nearest ancestor running `gemini`). */
export const geminiProcess = (): AgentProcess | null => agentAncestor(runs("gemini"));

function geminiAdapter(input: Input, current: Adapter, agent: AgentProcess | null, live: boolean): Adapter {
  const keep = current.kind === "gemini" ? current : { kind: "gemini" as const };
  const { pid: recorded, pidStart: recordedStart, ...rest } = keep as Adapter & { pid?: number; pidStart?: string };
  // Ending: forget the pid only if it is this process's — a headless resume ending must not forget a
  // terminal that opened the session meanwhile.
  const own = agent?.pid;
  const pid = live ? own : recorded !== own ? recorded : undefined;
  const pidStart = live ? agent?.start : pid === recorded ? recordedStart : undefined;
  const configDir = process.env.GEMINI_CLI_HOME;
  return {
    ...rest,
    kind: "gemini",
    ...(pid ? { pid } : {}),
    ...(pid && pidStart ? { pidStart } : {}),
    ...(configDir ? { configDir } : {}),
    ...(input.transcript_path ? { transcriptPath: input.transcript_path } : {}),
  } as Adapter;
}

export async function runGeminiHook(event: GeminiEvent, stdin: string, home: string): Promise<void> {
  const input = parseHookJson(stdin, InputSchema);
  const sid = input.session_id;
  if (event === "session-start" || event === "session-end") {
    const live = event === "session-start";
    if (live) await ensureDaemon(home);
    const api = new ApiClient(home);
    const agent = geminiProcess();
    const cwd = input.cwd ?? process.cwd();
    const session = await api.call("createSession", {
      body: { id: sid, root: cwd, label: `Gemini CLI · ${basename(cwd)}` },
    });
    // A session the user pointed elsewhere (a webhook, a command) keeps its adapter.
    if (["inbox", "mcp", "gemini"].includes(session.adapter.kind)) {
      await api.call("updateSession", {
        params: { sid },
        body: { adapter: geminiAdapter(input, session.adapter, agent, live) },
      });
    }
    if (agent && live) recordBinding(home, agent, "gemini", sid);
    if (agent && !live) dropBinding(home, agent);
    if (live)
      printJson(
        { hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: sessionNote("Gemini CLI", sid) } },
        undefined,
      );
    return;
  }
  // A continuation's AfterAgent: the wakes went in with the block that started it.
  if (event === "stop" && input.stop_hook_active) return;
  const api = new ApiClient(home);
  const { wakes } = await api.call("claimWakes", { params: { sid }, query: { wait: 0, via: `gemini-${event}` } });
  if (wakes.length === 0) return;
  const text = handoverText(wakes);
  if (event === "stop") printJson({ decision: "block", reason: text }, undefined);
  else printJson({ hookSpecificOutput: { hookEventName: "BeforeAgent", additionalContext: text } }, undefined);
}
