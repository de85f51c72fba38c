/**
 * Look-alikes of a live agent session (design.md §6, §8), against the real daemon: a recycled pid
 * (the kernel really hands the Claude Code pid to a new process, through ns_last_pid) and a lock
 * another user takes on a Codex thread's lock file never hold the session's wakes; the session is
 * resumed headless. The agent's own live process and its own lock still hold them.
 * Needs root (to pick the next pid, and to run a process as another user), as the device tests do.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, expect, test } from "vitest";
import { BIN, TestDaemon, waitFor } from "../helpers/daemon.js";

if (process.getuid?.() !== 0)
  throw new Error("test/faults/agent-liveness.test.ts needs root: it sets the next pid and runs a process as nobody");

let daemon: TestDaemon;
let outside: string;
const children: ChildProcess[] = [];
beforeAll(async () => {
  daemon = await TestDaemon.start();
  outside = mkdtempSync(join(tmpdir(), "vigil-liveness-"));
  chmodSync(outside, 0o755);
});
afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await daemon.dispose();
  rmSync(outside, { recursive: true, force: true });
});

/** A fake agent CLI for the headless resume: it answers for the session it was given. */
function fakeAgent(name: string, script: string): string {
  const path = join(outside, name);
  writeFileSync(path, `#!/bin/sh\ncat >/dev/null\n${script}\n`, { mode: 0o755 });
  return path;
}

/** A live process whose command line says "claude" (a terminal's Claude Code, as far as ps tells). */
function claudeLookalike(): ChildProcess {
  const child = spawn("sleep", ["600"], { argv0: "claude", stdio: "ignore" });
  children.push(child);
  return child;
}

/** The kernel gives `pid` to the next process: a Claude Code pid, recycled. */
async function recycle(pid: number): Promise<ChildProcess> {
  for (let attempt = 0; attempt < 200; attempt++) {
    writeFileSync("/proc/sys/kernel/ns_last_pid", String(pid - 1));
    const child = claudeLookalike();
    if (child.pid === pid) return child;
    child.kill("SIGKILL"); // another process took it first on this busy machine: again
  }
  throw new Error(`Expected to start a process with the recycled pid ${pid}, got other pids 200 times`);
}

async function armWake(sid: string): Promise<void> {
  await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
    source: { kind: "command", command: `echo ${sid}` },
    intervalSeconds: 5,
  });
}

const wakeOf = async (sid: string) => (await daemon.api("GET", `/api/sessions/${sid}/wakes`)).body[0];
const log = () => readFileSync(join(daemon.home, "vigil.log"), "utf8");

/** Claude Code's SessionStart hook, run under the agent process `pid`. */
async function sessionStart(sid: string, pid: number): Promise<void> {
  await execa(process.execPath, [BIN, "--home", daemon.home, "hook", "claude", "session-start"], {
    input: JSON.stringify({ session_id: sid, cwd: outside }),
    env: { CLAUDE_PID: String(pid), CLAUDE_CONFIG_DIR: join(outside, "claude-config") },
  });
}

test("a Claude Code session's wakes are held while its process lives, and not by a process that got its pid later", async () => {
  const program = fakeAgent("claude", `printf '{"session_id":"%s","is_error":false}\\n' "$2"`);

  // The agent's own process lives: its wake is held for its hooks.
  const live = claudeLookalike();
  await daemon.api("POST", "/api/sessions", { id: "claude-live", adapter: { kind: "claude", program } });
  await sessionStart("claude-live", live.pid as number);
  const recorded = (await daemon.api("GET", "/api/sessions/claude-live")).body.adapter;
  // With the process's start time (/proc/<pid>/stat field 22), read under it by the hook.
  const stat = readFileSync(`/proc/${live.pid}/stat`, "utf8");
  const started = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  expect(recorded).toMatchObject({ kind: "claude", pid: live.pid, pidStart: started, program });
  await armWake("claude-live");
  await waitFor(() => log().includes("wakes of session claude-live held"), { what: "the live session's hold" });
  expect((await wakeOf("claude-live")).state).toBe("ready");

  // The agent's process ends without its SessionEnd hook; the kernel gives its pid to another one.
  const gone = claudeLookalike();
  await daemon.api("POST", "/api/sessions", { id: "claude-gone", adapter: { kind: "claude", program } });
  await sessionStart("claude-gone", gone.pid as number);
  const exited = new Promise((resolve) => gone.once("exit", resolve));
  gone.kill("SIGKILL");
  await exited;
  await recycle(gone.pid as number);
  await armWake("claude-gone");
  const wake = await waitFor(
    async () => {
      const w = await wakeOf("claude-gone");
      return w?.state === "delivered" ? w : null;
    },
    { what: "the wake of the session whose pid was recycled to be resumed headless" },
  );
  expect(wake.deliveredVia).toBe("claude --resume (headless)");
  expect(log()).not.toContain("wakes of session claude-gone held");
});

test("a Codex thread's wakes are held by its own writer lock, not by a lock another user takes on the same file", async () => {
  const codexHome = join(outside, "codex-home");
  const locks = join(codexHome, "thread-writer-locks");
  mkdirSync(locks, { recursive: true, mode: 0o755 });
  const program = fakeAgent(
    "codex",
    `printf '{"type":"thread.started","thread_id":"%s"}\\n{"type":"turn.completed"}\\n' "$5"`,
  );
  const lockedBy = async (sid: string, argv: string[]) => {
    const file = join(locks, `${sid}.lock`);
    writeFileSync(file, "", { mode: 0o644 });
    const child = spawn(argv[0] as string, [...argv.slice(1), "flock", "--no-fork", "-x", file, "sleep", "600"], {
      stdio: "ignore",
    });
    children.push(child);
    const ino = String(statSync(file).ino);
    await waitFor(() => readFileSync("/proc/locks", "utf8").includes(`:${ino} `), { what: `a lock on ${sid}.lock` });
  };

  // This user's Codex holds the thread's lock: held.
  await daemon.api("POST", "/api/sessions", {
    id: "codex-own",
    adapter: { kind: "codex", configDir: codexHome, program },
    // As its hooks report it: full access, so its checks run as before (#37).
    sandbox: { agent: "codex", mode: "danger-full-access", root: "/" },
  });
  await lockedBy("codex-own", ["env"]);
  await armWake("codex-own");
  await waitFor(() => log().includes("wakes of session codex-own held"), { what: "the open thread's hold" });
  expect((await wakeOf("codex-own")).state).toBe("ready");

  // Another user opens the readable lock file and locks it: nothing of ours is open.
  await daemon.api("POST", "/api/sessions", {
    id: "codex-other",
    adapter: { kind: "codex", configDir: codexHome, program },
    // As its hooks report it: full access, so its checks run as before (#37).
    sandbox: { agent: "codex", mode: "danger-full-access", root: "/" },
  });
  await lockedBy("codex-other", ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]);
  await armWake("codex-other");
  const wake = await waitFor(
    async () => {
      const w = await wakeOf("codex-other");
      return w?.state === "delivered" ? w : null;
    },
    { what: "the wake of the thread another user locked to be resumed headless" },
  );
  expect(wake.deliveredVia).toBe("codex exec resume (headless)");
});
