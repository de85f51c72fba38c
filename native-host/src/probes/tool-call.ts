/**
 * Runs a read-only tool as one check (shared by the `tool` source and event fallbacks).
 * Design: docs/design.md §4.1.
 */
import { toError } from "../base/log.js";
import { envNameFor } from "../secrets/references.js";
import { readOnlyTool } from "../tools/registry.js";
import { ToolError } from "../tools/tool.js";
import type { CheckContext, CheckResult } from "./probe.js";

/** The monitor's resolved secrets come as VIGIL_SECRET_KEY variables; tools want KEY → value. */
export function secretsFromEnv(env: Record<string, string>): Map<string, string> {
  const prefix = envNameFor("");
  return new Map(
    Object.entries(env).flatMap(([name, value]) =>
      name.startsWith(prefix) ? [[name.slice(prefix.length), value]] : [],
    ),
  );
}

/** One call of `call.name` with `call.args`; `anyHost` tells the tool it may be on another host than the session's. */
export async function callTool(
  call: { name: string; args: unknown; anyHost?: boolean | undefined },
  context: CheckContext,
): Promise<CheckResult> {
  try {
    const { tool, args: parsed } = readOnlyTool(call.name, call.args);
    const observation = await tool.run(parsed, {
      signal: context.signal,
      timeoutMs: context.timeoutMs,
      secrets: secretsFromEnv(context.env),
      anyHost: call.anyHost === true,
    });
    return { outcome: "observed", observation, eventText: JSON.stringify(observation).slice(0, 2000) };
  } catch (error) {
    const retryAt = error instanceof ToolError ? error.retryAt : undefined;
    return { outcome: "error", error: toError(error).message, ...(retryAt ? { retryAt } : {}) };
  }
}
