/**
 * `vigil hook claude|codex <event>`: what an agent's hooks run (written by `vigil setup`). Each reads
 * the hook's JSON on stdin and answers on stdout in the agent's hook format:
 *   session-start  binds the agent session to the Vigil session of the same id (cwd, process) and
 *                  tells the model Vigil is here;
 *   prompt / stop  hand the session's ready wakes to the live agent (the hook's own claim is the
 *                  delivery proof): as context for the next prompt, or as a reason to keep going;
 *   rewake         (background) waits until a wake is ready, then takes it and exits 2 with it on
 *                  stderr: the one message an idle session wakes with (its transcript confirms it);
 *   session-end    marks the session closed (later wakes resume it headless).
 * A hook never breaks the agent: any failure is one line on stderr and exit 0.
 * Design: docs/design.md §6.
 */

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { Command } from "commander";
import { z } from "zod";
import type { Adapter } from "../../../shared/schemas/inputs.js";
import { ApiClient } from "../api/client.js";
import { isAlive } from "../base/home.js";
import { processStart } from "../base/process-start.js";
import { ensureDaemon } from "../daemon-launch.js";
import { codexSandboxOf } from "./codex-sandbox-report.js";
import { homeOf, printError, printJson } from "./context.js";
import { COPILOT_EVENTS, type CopilotEvent, runCopilotHook } from "./copilot-hooks.js";
import { GEMINI_EVENTS, type GeminiEvent, runGeminiHook } from "./gemini-hooks.js";
import { handoverText, parseHookJson, sessionNote } from "./hook-input.js";
import { OPENCODE_EVENTS, type OpencodeEvent, runOpencodeHook } from "./opencode-hooks.js";

const AGENTS = { claude: "Claude Code", codex: "Codex" } as const;
type AgentKind = keyof typeof AGENTS;
const EVENTS = ["session-start", "prompt", "stop", "rewake", "session-end"] as const;
type HookEvent = (typeof EVENTS)[number];

/** What every hook's stdin carries that Vigil reads (the rest is ignored). */
const HookInputSchema = z.looseObject({
  session_id: z.string().min(1).max(128),
  cwd: z.string().optional(),
  transcript_path: z.string().nullish(),
  stop_hook_active: z.boolean().optional(),
});
type HookInput = z.infer<typeof HookInputSchema>;

/** How long a background rewake hook waits before it ends quietly (the agent restarts it next turn). */
const REWAKE_WAIT_SECONDS = 6 * 3600;

async function readStdin(timeoutMs = 5000): Promise<string> {
  const chunks: Buffer[] = [];
  const timer = setTimeout(() => process.stdin.destroy(), timeoutMs);
  try {
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  } catch {
    // A hook runner that keeps stdin open: what came is what there is.
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The agent's own process, where the agent names it (Claude Code: CLAUDE_PID). Codex names none;
 * its thread's writer lock tells whether it is open (delivery/adapters/agent.ts).
 */
function agentPid(agent: AgentKind): number | undefined {
  const named = Number(agent === "claude" ? process.env.CLAUDE_PID : undefined);
  return Number.isInteger(named) && named > 0 ? named : undefined;
}

/** The agent adapter for this session: what the hook knows now, over what the user chose before. */
function agentAdapter(agent: AgentKind, input: HookInput, current: Adapter | undefined, live: boolean): Adapter {
  const keep = current?.kind === agent ? current : { kind: agent };
  const configDir = agent === "claude" ? process.env.CLAUDE_CONFIG_DIR : process.env.CODEX_HOME;
  const { pid: recorded, pidStart: recordedStart, ...rest } = keep as Adapter & { pid?: number; pidStart?: string };
  // Starting: this process is the session's. Ending: forget the pid only if it is this process's —
  // a headless resume ending must not forget a terminal that opened the session meanwhile.
  const own = agentPid(agent);
  const pid = live ? own : recorded !== own ? recorded : undefined;
  // With its start time, so a recycled pid is never taken for the agent (read here, under it).
  const pidStart = live ? (own ? processStart(own) : null) : pid === recorded ? recordedStart : null;
  return {
    ...rest,
    ...(pid ? { pid } : {}),
    ...(pid && pidStart ? { pidStart } : {}),
    ...(configDir ? { configDir } : {}),
    ...(input.transcript_path ? { transcriptPath: input.transcript_path } : {}),
  } as Adapter;
}

/** What the background rewake hook wakes an idle session with: the wakes and what to do with them. */
export function rewakeMessage(text: string, count: number): string {
  const what = count === 1 ? "A Vigil wake" : `${count} Vigil wakes`;
  return `${what} for this session arrived while it was idle. Act on ${count === 1 ? "it" : "them"} now, as you would on a message from the user:\n\n${text}`;
}

/** A per-session file under `dir`, named safely after the session id. */
const sessionFile = (dir: string, sid: string, ext: string) => join(dir, `${sid.replace(/[^\w.-]/g, "_")}.${ext}`);

/** Claude Code's default cap on consecutive Stop-hook blocks (CLAUDE_CODE_STOP_HOOK_BLOCK_CAP). */
const STOP_BLOCK_CAP = 8;

/**
 * This session's consecutive Stop blocks so far (none when this Stop is not a continuation), the
 * cap, and how to count one more.
 */
function stopBlocks(home: string, sid: string, continuation: boolean) {
  const dir = join(home, "rewake");
  const file = sessionFile(dir, sid, "blocks");
  let count = 0;
  try {
    count = continuation ? Number(readFileSync(file, "utf8")) || 0 : 0;
  } catch {
    count = 0;
  }
  return {
    count,
    cap: Number(process.env.CLAUDE_CODE_STOP_HOOK_BLOCK_CAP) || STOP_BLOCK_CAP,
    record() {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileSync(file, String(count + 1), { mode: 0o600 });
    },
  };
}

/** Ends the session's previous rewake waiter (if it still is one) and records this process. */
function takeOverWaiter(home: string, sid: string): void {
  const dir = join(home, "rewake");
  const file = sessionFile(dir, sid, "pid");
  try {
    const previous = Number(readFileSync(file, "utf8"));
    const cmdline = readFileSync(`/proc/${previous}/cmdline`, "utf8");
    if (previous !== process.pid && cmdline.includes("hook") && cmdline.includes("rewake")) {
      process.kill(previous, "SIGTERM");
    }
  } catch {
    // No previous waiter, or it is gone.
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(file, String(process.pid), { mode: 0o600 });
}

/** Is the agent a one-shot print run (`-p`/`--print` without a held-open stream-json input)? */
function isOneShot(pid: number | undefined): boolean {
  if (!pid) return false;
  let args: string[];
  try {
    args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return false;
  }
  const print = args.includes("-p") || args.includes("--print");
  const streaming = args.some(
    (arg, i) => arg === "--input-format=stream-json" || (arg === "--input-format" && args[i + 1] === "stream-json"),
  );
  return print && !streaming;
}

/** The sandbox the Codex session's newest turn runs under, told to the daemon (checks armed later keep it). */
async function reportCodexSandbox(api: ApiClient, sid: string, transcriptPath: string | null | undefined) {
  const sandbox = transcriptPath ? codexSandboxOf(transcriptPath) : null;
  if (sandbox) await api.call("updateSession", { params: { sid }, body: { sandbox } });
}

async function run(agent: AgentKind, event: HookEvent, home: string): Promise<void> {
  const input = parseHookJson(await readStdin(), HookInputSchema);
  const sid = input.session_id;
  if (event === "session-start" || event === "session-end") {
    if (event === "session-start") await ensureDaemon(home);
    const api = new ApiClient(home);
    const live = event === "session-start";
    const cwd = input.cwd ?? process.cwd();
    const session = await api.call("createSession", {
      body: { id: sid, root: cwd, label: `${AGENTS[agent]} · ${basename(cwd)}` },
    });
    // A session the user pointed elsewhere (a webhook, a command) keeps its adapter.
    if (["inbox", "mcp", agent].includes(session.adapter.kind)) {
      await api.call("updateSession", {
        params: { sid },
        body: { adapter: agentAdapter(agent, input, session.adapter, live) },
      });
    }
    if (agent === "codex") await reportCodexSandbox(api, sid, input.transcript_path);
    if (live) {
      printJson(
        { hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: sessionNote(AGENTS[agent], sid) } },
        undefined,
      );
    }
    return;
  }
  const api = new ApiClient(home);
  if (agent === "codex") await reportCodexSandbox(api, sid, input.transcript_path);
  if (event === "rewake") {
    // A one-shot `claude -p` cannot be woken (it ends with its turn) and would wait for this hook.
    const agentProcess = agentPid(agent);
    if (isOneShot(agentProcess)) return;
    // One waiter per session: each Stop starts a new one, which ends the one before.
    takeOverWaiter(home, sid);
    const until = Date.now() + REWAKE_WAIT_SECONDS * 1000;
    let ready = 0;
    while (ready === 0 && Date.now() < until) {
      if (agentProcess && !isAlive(agentProcess)) return;
      // One long-poll is at most 300 s (MAX_CLAIM_WAIT_SECONDS); keep asking until the hour is up.
      ready = (await api.call("waitReady", { params: { sid }, query: { wait: 300 } })).ready;
    }
    if (ready === 0) return;
    // One message wakes the session: the wakes themselves, handed over like the Stop hook's (the
    // transcript confirms them), so the model never reads "end your turn" beside what it already has.
    const { wakes } = await api.call("claimWakes", { params: { sid }, query: { wait: 0, via: `${agent}-rewake` } });
    if (wakes.length === 0) return; // another hook took them meanwhile
    process.stderr.write(`${rewakeMessage(handoverText(wakes), wakes.length)}\n`);
    process.exitCode = 2;
    return;
  }
  // Codex has no cap on Stop-hook continuations: hand over wakes only on the first Stop of a turn.
  if (agent === "codex" && event === "stop" && input.stop_hook_active) return;
  // Claude Code discards a Stop block past its cap (8 in a row): never claim a wake it would drop;
  // it stays ready for the next prompt, the rewake waiter or a resume.
  const blocks = agent === "claude" && event === "stop" ? stopBlocks(home, sid, input.stop_hook_active === true) : null;
  if (blocks && blocks.count >= blocks.cap - 1) return;
  const via = `${agent}-${event}`;
  const { wakes } = await api.call("claimWakes", { params: { sid }, query: { wait: 0, via } });
  if (wakes.length === 0) return;
  const text = handoverText(wakes);
  if (event === "stop") {
    blocks?.record();
    printJson({ decision: "block", reason: text }, undefined);
  } else {
    printJson({ hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: text } }, undefined);
  }
}

export function registerHookCommands(program: Command): void {
  program
    .command("hook <agent> <event>", { hidden: true })
    .description("what an agent's hooks run (written by vigil setup); reads the hook JSON on stdin")
    .action(async (agent: string, event: string, _options: unknown, command: Command) => {
      try {
        if (agent === "gemini") {
          if (!(GEMINI_EVENTS as readonly string[]).includes(event))
            throw new Error(`Expected ${GEMINI_EVENTS.join(", ")}, got ${event}`);
          return await runGeminiHook(event as GeminiEvent, await readStdin(), homeOf(command));
        }
        if (agent === "opencode") {
          if (!(OPENCODE_EVENTS as readonly string[]).includes(event))
            throw new Error(`Expected ${OPENCODE_EVENTS.join(", ")}, got ${event}`);
          return await runOpencodeHook(event as OpencodeEvent, await readStdin(), homeOf(command));
        }
        if (agent === "copilot") {
          if (!(COPILOT_EVENTS as readonly string[]).includes(event))
            throw new Error(`Expected ${COPILOT_EVENTS.join(", ")}, got ${event}`);
          return await runCopilotHook(event as CopilotEvent, await readStdin(), homeOf(command));
        }
        if (!(agent in AGENTS))
          throw new Error(`Expected agent claude, codex, gemini, opencode or copilot, got ${agent}`);
        if (!(EVENTS as readonly string[]).includes(event))
          throw new Error(`Expected ${EVENTS.join(", ")}, got ${event}`);
        await run(agent as AgentKind, event as HookEvent, homeOf(command));
      } catch (error) {
        // Never break the agent's session over Vigil.
        printError(`vigil hook ${agent} ${event}: ${(error as Error).message}`);
        if (process.exitCode === 2) process.exitCode = 0;
      }
    });
}
