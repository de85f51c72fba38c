/**
 * Every built-in tool, in one place. A monitor may call only the read-only ones.
 * Design: docs/design.md §4.1.
 */

import { formatZodError } from "../../../shared/schemas/zod-error.js";
import { ValidationError } from "../base/errors.js";
import { secretKeysIn } from "../secrets/references.js";
import { fileRead, fileStat } from "./file-tools.js";
import { githubDeployment } from "./github-deployment.js";
import { githubPr } from "./github-pr.js";
import { githubRun } from "./github-run.js";
import { httpGet } from "./http-get.js";
import { processStatus } from "./process-status.js";
import type { Tool } from "./tool.js";

const BUILT_IN: Tool[] = [httpGet, fileStat, fileRead, processStatus, githubPr, githubRun, githubDeployment] as Tool[];

export const TOOLS = new Map(BUILT_IN.map((tool) => [tool.name, tool]));

/** Registers a tool served elsewhere (the browser's `browser__tabs`). */
export function registerTool(tool: Tool): void {
  TOOLS.set(tool.name, tool);
}

export const readOnlyToolNames = () => [...TOOLS.values()].filter((t) => t.readOnly).map((t) => t.name);

/** The tool and its parsed arguments; refuses unknown and non-read-only tools by name. */
export function readOnlyTool(name: string, args: unknown, where = "source"): { tool: Tool; args: unknown } {
  const tool = TOOLS.get(name);
  if (!tool?.readOnly) {
    throw new ValidationError(
      `${where}.name: ${tool ? `${name} is not read-only` : `${name} is not a known tool`}; a monitor may only call read-only tools: ${readOnlyToolNames().join(", ")}`,
    );
  }
  const parsed = tool.args.safeParse(args);
  if (!parsed.success) throw new ValidationError(`${where}.args: ${formatZodError(parsed.error)}`);
  return { tool, args: parsed.data };
}

/** Whether a source may ask for any host of a team to run this tool (it needs nothing of its host). */
export const mayRunOnAnyHost = (name: string): boolean => TOOLS.get(name)?.whyNotOnAnyHost !== undefined;

/**
 * At arming, a source's `anyHost: true` (team mode, design.md §9.1): only for a tool that needs
 * nothing of its host, without a vault reference (vaults are per home), and never for a URL that
 * is loopback, link-local or private as written (a name is checked again at each run).
 */
export function assertAnyHostAllowed(name: string, args: unknown, where = "source"): void {
  const tool = TOOLS.get(name);
  if (!tool?.whyNotOnAnyHost) {
    const allowed = [...TOOLS.values()].filter((t) => t.whyNotOnAnyHost).map((t) => t.name);
    throw new ValidationError(
      `${where}.anyHost: Expected a tool any host may run (${allowed.join(", ")}), got ${name}: it runs on the session's host`,
    );
  }
  const secret = secretKeysIn(JSON.stringify(args))[0];
  if (secret)
    throw new ValidationError(
      `${where}.anyHost: Expected no vault reference in a check any host may run, got \${secret:${secret}}: vaults are per host, so it runs on the session's host (drop anyHost)`,
    );
  const problem = tool.whyNotOnAnyHost(args);
  if (problem) throw new ValidationError(`${where}.anyHost: ${problem}`);
}
