/**
 * `vigil hook opencode <event>`: what Vigil's OpenCode plugin runs (written by `vigil setup
 * opencode`, loaded into the OpenCode process). Each reads `{session_id, cwd}` on stdin:
 *   session-start  binds the OpenCode session to the Vigil session of the same id, with the OpenCode
 *                  process (the nearest ancestor running `opencode`) and its start time;
 *   idle           the session is idle: claims its ready wakes and prints `{"text": …}`, which the
 *                  plugin sends to the session as a prompt through OpenCode's API;
 *   ready          long-polls until a wake is ready (takes nothing) and prints `{"ready": n}`.
 * OpenCode keeps no transcript file Vigil could read: the plugin's claim is the delivery proof.
 * Design: docs/design.md §6.
 */
import { basename } from "node:path";
import { z } from "zod";
import type { Adapter } from "../../../shared/schemas/inputs.js";
import { turnText } from "../../../shared/wording.js";
import { ApiClient } from "../api/client.js";
import { agentAncestor, runs } from "../base/agent-process.js";
import { ensureDaemon } from "../daemon-launch.js";
import { printJson } from "./context.js";

export const OPENCODE_EVENTS = ["session-start", "idle", "ready"] as const;
export type OpencodeEvent = (typeof OPENCODE_EVENTS)[number];

const InputSchema = z.looseObject({ session_id: z.string().min(1).max(128), cwd: z.string().optional() });

/** One long-poll (the plugin asks again while the session stays idle). */
const READY_WAIT_SECONDS = 300;

export async function runOpencodeHook(event: OpencodeEvent, stdin: string, home: string): Promise<void> {
  let raw: unknown;
  try {
    raw = JSON.parse(stdin);
  } catch {
    throw new Error(`Expected the plugin's JSON on stdin, got ${stdin.trim() === "" ? "nothing" : "malformed JSON"}`);
  }
  const parsed = InputSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`Expected a session_id on stdin, got ${JSON.stringify(raw).slice(0, 80)}`);
  const sid = parsed.data.session_id;
  if (event === "session-start") {
    await ensureDaemon(home);
    const api = new ApiClient(home);
    const cwd = parsed.data.cwd ?? process.cwd();
    const session = await api.call("createSession", {
      body: { id: sid, root: cwd, label: `OpenCode · ${basename(cwd)}` },
    });
    // A session the user pointed elsewhere (a webhook, a command) keeps its adapter.
    if (!["inbox", "mcp", "opencode"].includes(session.adapter.kind)) return;
    const agent = agentAncestor(runs("opencode"));
    const {
      pid: _pid,
      pidStart: _start,
      ...rest
    } = (session.adapter.kind === "opencode" ? session.adapter : { kind: "opencode" }) as Adapter & {
      pid?: number;
      pidStart?: string;
    };
    const configDir = process.env.OPENCODE_CONFIG_DIR;
    const adapter = {
      ...rest,
      kind: "opencode",
      ...(agent ? { pid: agent.pid, pidStart: agent.start } : {}),
      ...(configDir ? { configDir } : {}),
    } as Adapter;
    await api.call("updateSession", { params: { sid }, body: { adapter } });
    return;
  }
  const api = new ApiClient(home);
  if (event === "ready") {
    const { ready } = await api.call("waitReady", { params: { sid }, query: { wait: READY_WAIT_SECONDS } });
    printJson({ ready }, undefined);
    return;
  }
  const { wakes } = await api.call("claimWakes", { params: { sid }, query: { wait: 0, via: "opencode-idle" } });
  if (wakes.length > 0) printJson({ text: turnText(wakes) }, undefined);
}
