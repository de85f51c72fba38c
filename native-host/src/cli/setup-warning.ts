/**
 * What `vigil setup AGENT` says when the agent's CLI is not there (or is a version Vigil was not
 * tested with): a warning naming what is missing and the command that installs it, and — instead of
 * "Start Claude Code …" — what to do once it is installed.
 * Design: docs/design.md §7.
 */
import { probeAgentCli } from "../install/agent-clis.js";
import type { Agent } from "../install/agents.js";
import { installCommand, isTestedVersion } from "../install/tested-versions.js";

export interface SetupWarning {
  /** Lines for stderr. */
  lines: string[];
  /** Replaces setup's closing "Start …" lines; undefined keeps them. */
  next?: string[];
}

export async function agentCliWarning(
  agent: Agent,
  env: NodeJS.ProcessEnv = process.env,
): Promise<SetupWarning | null> {
  const state = await probeAgentCli(agent, env);
  const { cli } = state;
  if (state.path === null)
    return {
      lines: [
        `warning: ${cli.label} is not installed: ${state.shell}'s login shell does not find ${cli.program} (${state.lookup}). Install it: ${installCommand(cli)}`,
      ],
      next: [
        `Vigil is set up for ${cli.label}. Once it is installed (${installCommand(cli)}), start it and ask it`,
        "to wait for something; `vigil doctor` checks the whole setup.",
      ],
    };
  if (state.version === null || !isTestedVersion(cli, state.version))
    return {
      lines: [
        `warning: ${state.path} is ${state.version === null ? "of no version `--version` tells" : `${cli.label} ${state.version}`}; Vigil was tested with ${cli.tested.join(", ")} (${installCommand(cli)})`,
      ],
    };
  return null;
}
