/**
 * The agent CLIs Vigil was tested with: the program each agent runs, the npm package that installs
 * it, and the versions the real-CLI tests (test/agents/) ran. The README's agents table cites these;
 * `vigil doctor` says when an installed CLI is another version, and `vigil setup` when it is absent.
 * Design: docs/design.md §6, §7.
 */
import type { Agent } from "./agents.js";

export interface AgentCli {
  /** The name people know it by. */
  label: string;
  /** The program on PATH. */
  program: string;
  /** The npm package that installs it. */
  npmPackage: string;
  /** The versions the real-CLI tests ran, newest first. */
  tested: readonly string[];
}

export const AGENT_CLIS: Record<Agent, AgentCli> = {
  "claude-code": {
    label: "Claude Code",
    program: "claude",
    npmPackage: "@anthropic-ai/claude-code",
    tested: ["2.1.328"],
  },
  codex: { label: "Codex", program: "codex", npmPackage: "@openai/codex", tested: ["0.169.0"] },
  gemini: { label: "Gemini CLI", program: "gemini", npmPackage: "@google/gemini-cli", tested: ["0.61.0"] },
  opencode: { label: "OpenCode", program: "opencode", npmPackage: "opencode-ai", tested: ["1.18.33"] },
  copilot: { label: "GitHub Copilot CLI", program: "copilot", npmPackage: "@github/copilot", tested: ["1.0.102"] },
};

/** The command that installs the newest tested version. */
export const installCommand = (cli: AgentCli): string => `npm install -g ${cli.npmPackage}@${cli.tested[0]}`;

/** The version in a CLI's `--version` output ("2.1.328 (Claude Code)", "codex-cli 0.169.0"), or null. */
export function parseVersion(output: string): string | null {
  return /(\d+\.\d+\.\d+(?:-[\w.]+)?)/.exec(output)?.[1] ?? null;
}

export const isTestedVersion = (cli: AgentCli, version: string): boolean => cli.tested.includes(version);
