/**
 * Is an agent's CLI there, and a version Vigil was tested with? Looked up the way the user's
 * terminal finds it — a new login shell (`bash -lc 'command -v claude'`) — and asked `--version`.
 * `vigil doctor` reports it for every agent that is set up; `vigil setup AGENT` warns when it is
 * missing, since the daemon could then resume none of that agent's sessions.
 * Design: docs/design.md §6, §7.
 */
import { type Agent, setUpAgents } from "./agents.js";
import type { Finding } from "./install.js";
import { quote } from "./launcher.js";
import { inLoginShell, lookUp, type ShellName, userShell } from "./login-shell.js";
import { AGENT_CLIS, type AgentCli, installCommand, isTestedVersion, parseVersion } from "./tested-versions.js";

export interface AgentCliState {
  agent: Agent;
  cli: AgentCli;
  shell: ShellName;
  /** How the lookup reads as a command, e.g. `bash -lc 'command -v claude'`. */
  lookup: string;
  /** Where the login shell finds the program, or null. */
  path: string | null;
  /** What its `--version` says, or null (not found, or no version in its output). */
  version: string | null;
}

export async function probeAgentCli(agent: Agent, env: NodeJS.ProcessEnv = process.env): Promise<AgentCliState> {
  const cli = AGENT_CLIS[agent];
  const shell = userShell(env);
  const { path, run } = await lookUp(shell, cli.program, env);
  const state = { agent, cli, shell, lookup: run.shown, path, version: null };
  if (path === null) return state;
  // Through the login shell again: a CLI that is a node script needs that shell's PATH to find node.
  const asked = await inLoginShell(shell, `${quote(path)} --version`, env);
  return { ...state, version: asked.exitCode === 0 ? parseVersion(asked.stdout) : null };
}

export function agentCliFinding(state: AgentCliState): Finding {
  const { cli, path, version } = state;
  const tested = cli.tested.join(", ");
  if (path === null)
    return {
      ok: false,
      what: `${cli.label} is set up but not installed: ${state.shell}'s login shell does not find ${cli.program} (${state.lookup}), so Vigil can resume none of its sessions`,
      fix: installCommand(cli),
    };
  if (version === null || !isTestedVersion(cli, version))
    return {
      ok: false,
      what: `${cli.label}: ${path} is ${version === null ? "of no version `--version` tells" : `version ${version}`}, not one Vigil was tested with (${tested})`,
      fix: installCommand(cli),
    };
  return { ok: true, what: `${cli.label}: ${cli.program} ${version} (${path}), a version Vigil was tested with` };
}

/** One finding per agent that is set up: its CLI is installed and a tested version. */
export async function agentCliFindings(env: NodeJS.ProcessEnv = process.env): Promise<Finding[]> {
  const states = await Promise.all(setUpAgents(env).map((agent) => probeAgentCli(agent, env)));
  return states.map(agentCliFinding);
}
