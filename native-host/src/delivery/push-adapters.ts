/**
 * The adapters that push a turn to a session (command, webhook, the agents), by kind, and what an
 * agent adapter keeps of its process when it is set.
 * Design: docs/design.md §6.
 */
import { type Adapter, isAgentAdapter } from "../../../shared/schemas/inputs.js";
import type { PushAdapter } from "./adapters/adapter.js";
import { claudeAdapter, codexAdapter } from "./adapters/agent.js";
import { processStart } from "./adapters/agent-liveness.js";
import { commandAdapter } from "./adapters/command.js";
import { copilotAdapter } from "./adapters/copilot.js";
import { geminiAdapter } from "./adapters/gemini.js";
import { opencodeAdapter } from "./adapters/opencode.js";
import { webhookAdapter } from "./adapters/webhook.js";

export const PUSH_ADAPTERS: Record<string, PushAdapter> = {
  command: commandAdapter as unknown as PushAdapter,
  webhook: webhookAdapter as unknown as PushAdapter,
  claude: claudeAdapter as unknown as PushAdapter,
  codex: codexAdapter as unknown as PushAdapter,
  gemini: geminiAdapter as unknown as PushAdapter,
  opencode: opencodeAdapter as unknown as PushAdapter,
  copilot: copilotAdapter as unknown as PushAdapter,
};

export const PUSH_KINDS = Object.keys(PUSH_ADAPTERS);

/**
 * An agent adapter's pid with its start time: the one the caller sent (the hook reads it under the
 * agent, or keeps it with a recorded pid), else read now; none without a pid.
 */
export function withPidStart(adapter: Adapter): Adapter {
  if (!isAgentAdapter(adapter)) return adapter;
  const { pidStart, ...rest } = adapter;
  if (!rest.pid) return rest;
  const started = pidStart ?? processStart(rest.pid);
  return started ? { ...rest, pidStart: started } : rest;
}
