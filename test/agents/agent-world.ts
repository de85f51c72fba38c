/**
 * One temporary world per agent test: a fake model API, a HOME, a project folder, a Vigil home,
 * the real agent CLI on PATH, and `vigil setup <agent>` already run in it — then the daemon it
 * started stopped and everything removed afterwards.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, beforeEach } from "vitest";
import { BIN, waitFor } from "../helpers/daemon.js";
import { cliBinDir } from "./agent-clis.js";
import { type FakeModelApi, startFakeModelApi } from "./fake-model-api.js";

export interface AgentWorld {
  api: FakeModelApi;
  root: string;
  home: string;
  work: string;
  vigilHome: string;
  env: Record<string, string>;
  /** Runs the real `vigil` CLI in this world and parses its --json output. */
  vigil(...args: string[]): Promise<any>;
}

export function useAgentWorld(
  agent: "claude-code" | "codex" | "gemini" | "opencode" | "copilot",
  configure: (world: Omit<AgentWorld, "env" | "vigil">) => Record<string, string>,
): AgentWorld {
  const world = {} as AgentWorld;
  beforeEach(async () => {
    world.api = await startFakeModelApi();
    world.root = mkdtempSync(join(tmpdir(), `vigil-${agent}-`));
    world.home = join(world.root, "home");
    world.work = join(world.root, "project");
    world.vigilHome = join(world.root, "vigil");
    mkdirSync(world.home);
    mkdirSync(world.work);
    world.env = {
      ...(process.env as Record<string, string>),
      HOME: world.home,
      VIGIL_HOME: world.vigilHome,
      VIGIL_INTERVAL_FLOOR_SECONDS: "0.2",
      PATH: `${join(world.home, ".local", "bin")}:${cliBinDir()}:${process.env.PATH}`,
      ...configure(world),
    };
    for (const name of [
      "CLAUDE_CODE_SESSION_ID",
      "CODEX_THREAD_ID",
      "VIGIL_SESSION",
      "GEMINI_CLI",
      "OPENCODE_SESSION_ID",
      "COPILOT_AGENT_SESSION_ID",
      "COPILOT_HOME",
    ])
      delete world.env[name];
    world.vigil = async (...args: string[]) =>
      JSON.parse((await execa(process.execPath, [BIN, ...args, "--json"], { env: world.env })).stdout);
    execFileSync(process.execPath, [BIN, "setup", agent], { env: world.env, stdio: "pipe" });
  });
  afterEach(async () => {
    try {
      const info = JSON.parse(readFileSync(join(world.vigilHome, "daemon.json"), "utf8")) as { pid: number };
      process.kill(info.pid, "SIGTERM");
      await waitFor(() => !existsSync(join(world.vigilHome, "daemon.json")), { what: "the daemon to stop" });
    } catch {
      // No daemon started.
    }
    await world.api.close();
    rmSync(world.root, { recursive: true, force: true });
  });
  return world;
}
