/**
 * Making sure a session exists before something is armed in it. A session this process's agent
 * is bound to (a Claude Code or Codex tool subprocess, or its MCP server) delivers through that
 * agent: in-session while it runs, resumed once it is closed — unless the user chose otherwise.
 * Design: docs/design.md §6.
 */
import { agentOfShell } from "../base/config.js";
import type { ApiClient } from "./client.js";

export async function ensureSession(client: ApiClient, sid: string, root = process.cwd()): Promise<void> {
  const session = await client.call("createSession", { body: { id: sid, root } });
  const agent = agentOfShell();
  if (agent?.id === sid && session.adapter.kind === "inbox") {
    await client.call("updateSession", {
      params: { sid },
      body: { adapter: { kind: agent.kind, ...(agent.pid ? { pid: agent.pid } : {}) } },
    });
  }
}
