/**
 * The agents `vigil setup` wires to Vigil, and whether one is set up (its config or hook files carry
 * Vigil's entries): what setup, its --remove and doctor ask alike.
 * Design: docs/design.md §6, §7.
 */
import { claudePaths } from "./claude-code.js";
import { codexPaths } from "./codex.js";
import { copilotPaths, isCopilotSetUp } from "./copilot.js";
import { geminiPaths, isGeminiSetUp } from "./gemini.js";
import { readText } from "./managed-files.js";
import { isOpencodeSetUp, opencodePaths } from "./opencode.js";

export const AGENTS = ["claude-code", "codex", "gemini", "opencode", "copilot"] as const;
export type Agent = (typeof AGENTS)[number];

export const isAgent = (name: string): name is Agent => (AGENTS as readonly string[]).includes(name);

export function isSetUp(agent: Agent, env: NodeJS.ProcessEnv = process.env): boolean {
  if (agent === "claude-code") return /hook claude session-start/.test(readText(claudePaths(env).settings) ?? "");
  if (agent === "gemini") return isGeminiSetUp(readText(geminiPaths(env).settings));
  if (agent === "opencode") return isOpencodeSetUp(readText(opencodePaths(env).plugin));
  if (agent === "copilot") return isCopilotSetUp(readText(copilotPaths(env).hooks));
  return /# >>> vigil/.test(readText(codexPaths(env).config) ?? "");
}

/** The agents setup has run for. */
export const setUpAgents = (env: NodeJS.ProcessEnv = process.env): Agent[] =>
  AGENTS.filter((agent) => isSetUp(agent, env));
