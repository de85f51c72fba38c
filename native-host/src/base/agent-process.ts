/**
 * Agents that do not tell their tool subprocesses which session they run in (Gemini CLI sets only
 * GEMINI_CLI=1 there): the agent's SessionStart hook records "process P, started at T, is in
 * session S" under the Vigil home, and a `vigil` call inside the agent finds the nearest ancestor
 * process with such a record whose start time still matches (a recycled pid is not the agent).
 * Design: docs/design.md §6.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { processStart } from "./process-start.js";

export interface AgentProcess {
  pid: number;
  /** /proc/<pid>/stat field 22. */
  start: string;
}

/** The parent of `pid` (/proc/<pid>/stat field 4), or null. */
export function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    return Number.isInteger(ppid) && ppid > 0 ? ppid : null;
  } catch {
    return null;
  }
}

function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  } catch {
    return [];
  }
}

/**
 * This process's nearest ancestor whose command line `matches` (the agent that ran this hook or
 * tool), with its start time; null outside one, or without /proc.
 */
export function agentAncestor(matches: (argv: string[]) => boolean, from = process.ppid): AgentProcess | null {
  let pid: number | null = from;
  for (let depth = 0; pid !== null && pid > 1 && depth < 16; depth++) {
    if (matches(commandLine(pid))) {
      const start = processStart(pid);
      return start ? { pid, start } : null;
    }
    pid = parentOf(pid);
  }
  return null;
}

/** Does `argv` run the program `name` (its own binary, or a script of that name run by node)? */
export const runs = (name: string) => (argv: string[]) =>
  argv.slice(0, 3).some((arg) => arg === name || arg.endsWith(`/${name}`) || arg.endsWith(`/${name}.js`));

const bindingFile = (home: string, pid: number) => join(home, "agents", `${pid}.json`);

/** Records that `agent` (a live process) is in session `sessionId` now (a new session replaces it). */
export function recordBinding(home: string, agent: AgentProcess, kind: string, sessionId: string): void {
  mkdirSync(join(home, "agents"), { recursive: true, mode: 0o700 });
  const file = bindingFile(home, agent.pid);
  writeFileSync(`${file}.tmp`, JSON.stringify({ ...agent, kind, sessionId }), { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

export function dropBinding(home: string, agent: AgentProcess): void {
  rmSync(bindingFile(home, agent.pid), { force: true });
}

/**
 * The session of the nearest ancestor with a record (the agent this shell runs under), if its start
 * time still matches the recorded one.
 */
export function boundSession(home: string, from = process.ppid): { kind: string; id: string; pid: number } | null {
  let pid: number | null = from;
  for (let depth = 0; pid !== null && pid > 1 && depth < 16; depth++) {
    try {
      const record = JSON.parse(readFileSync(bindingFile(home, pid), "utf8")) as {
        start?: unknown;
        kind?: unknown;
        sessionId?: unknown;
      };
      if (
        record.start === processStart(pid) &&
        typeof record.kind === "string" &&
        typeof record.sessionId === "string" &&
        record.sessionId !== ""
      )
        return { kind: record.kind, id: record.sessionId, pid };
    } catch {
      // No record for this process: look further up.
    }
    pid = parentOf(pid);
  }
  return null;
}
