import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import {
  deviceName,
  isAgentAlive,
  isCodexThreadOpen,
  isLockedBy,
  lockHolders,
  mountDevice,
  parseProcLocks,
  processStart,
} from "./agent-liveness.js";

let dir: string;
const children: ChildProcess[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "vigil-liveness-"));
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

/** A live process whose command line says `name`, as a recycled pid's new process may. */
function impostor(name: string): number {
  const child = spawn("sleep", ["600"], { argv0: name, stdio: "ignore" });
  children.push(child);
  return child.pid as number;
}

const LOCKS = [
  "1: FLOCK  ADVISORY  WRITE 4242 fe:00:2146933 0 EOF",
  "1: -> FLOCK  ADVISORY  WRITE 4343 fe:00:2146933 0 EOF",
  "2: POSIX  ADVISORY  READ 17 00:1c:2146933 0 EOF",
  "3: OFDLCK ADVISORY  WRITE -1 103:02:99 0 EOF",
  "",
].join("\n");

test("/proc/locks: holders with their device (hex in the file) and inode; waiters are not holders", () => {
  expect(parseProcLocks(LOCKS)).toEqual([
    { pid: 4242, device: "254:0", ino: "2146933" },
    { pid: 17, device: "0:28", ino: "2146933" },
    { pid: -1, device: "259:2", ino: "99" },
  ]);
});

test("a dev_t as major:minor, as /proc/locks and mountinfo name it", () => {
  expect(deviceName(65024n)).toBe("254:0");
  expect(deviceName(0x1cn)).toBe("0:28");
  // Major 259, minor 300 (past 8 bits: glibc's split encoding).
  expect(deviceName((259n << 8n) | (300n & 0xffn) | ((300n & ~0xffn) << 12n))).toBe("259:300");
});

test("a lock on the same inode of another filesystem, or held by another user, is not the thread's", () => {
  const own = (pid: number) => pid === 4242 || pid === 17;
  const file = { devices: new Set(["254:0"]), ino: "2146933" };
  expect(isLockedBy(parseProcLocks(LOCKS), file, own)).toBe(true);
  // Same inode number, other device (the tmpfs line): not this file.
  expect(isLockedBy(parseProcLocks(LOCKS.split("\n").slice(2).join("\n")), file, own)).toBe(false);
  // This file, but the holder is someone else's process.
  expect(isLockedBy(parseProcLocks(LOCKS), file, (pid) => pid === 17)).toBe(false);
  // Who holds it (the Codex route depends on it: an app-server takes a queued wake, another process its hooks).
  expect(lockHolders(parseProcLocks(LOCKS), file, own)).toEqual([4242]);
});

test("the filesystem's device of a path from mountinfo (btrfs subvolumes stat as another device)", () => {
  const mountinfo = [
    "22 1 0:30 /root / rw,relatime shared:1 - btrfs /dev/vda3 rw",
    "23 22 0:30 /home /home rw,relatime shared:2 - btrfs /dev/vda3 rw",
    "24 23 0:45 / /home/me/with\\040space rw - tmpfs tmpfs rw",
  ].join("\n");
  expect(mountDevice("/home/me/.codex/thread-writer-locks/t.lock", mountinfo)).toBe("0:30");
  expect(mountDevice("/home/me/with space/x", mountinfo)).toBe("0:45");
  expect(mountDevice("/etc/passwd", mountinfo)).toBe("0:30");
});

test("a Codex thread is open while this user's process holds its lock file; a lock on another file holds nothing", async () => {
  const home = join(dir, "codex");
  mkdirSync(join(home, "thread-writer-locks"), { recursive: true });
  const lock = join(home, "thread-writer-locks", "thread-1.lock");
  const other = join(home, "thread-writer-locks", "thread-2.lock");
  writeFileSync(lock, "");
  writeFileSync(other, "");
  expect(isCodexThreadOpen(home, "thread-1")).toBe(false);
  const holder = spawn("flock", ["--no-fork", "-x", other, "sleep", "600"], { stdio: "ignore" });
  children.push(holder);
  const ino = String(statSync(other).ino);
  await expect.poll(() => parseProcLocks(readFileSync("/proc/locks", "utf8")).some((l) => l.ino === ino)).toBe(true);
  expect(isCodexThreadOpen(home, "thread-2")).toBe(true);
  expect(isCodexThreadOpen(home, "thread-1")).toBe(false);
});

test("a live process at a recorded pid is the agent only if it started when the recorded one did", () => {
  const pid = impostor("claude");
  const started = processStart(pid) as string;
  expect(started).toMatch(/^\d+$/);
  expect(isAgentAlive(pid, "claude", { started })).toBe(true);
  // The pid was recorded for a process that started at another time: recycled, not the agent.
  expect(isAgentAlive(pid, "claude", { started: String(Number(started) - 1) })).toBe(false);
});

test("with no start recorded: Claude Code's own sessions/<pid>.json decides, else the command line", () => {
  const pid = impostor("claude");
  const started = processStart(pid) as string;
  const configDir = join(dir, "claude");
  mkdirSync(join(configDir, "sessions"), { recursive: true });
  // No sessions file (a record older than pidStart): the command line names claude.
  expect(isAgentAlive(pid, "claude", { configDir })).toBe(true);
  writeFileSync(join(configDir, "sessions", `${pid}.json`), JSON.stringify({ pid, procStart: "1" }));
  expect(isAgentAlive(pid, "claude", { configDir })).toBe(false);
  writeFileSync(join(configDir, "sessions", `${pid}.json`), JSON.stringify({ pid, procStart: started }));
  expect(isAgentAlive(pid, "claude", { configDir })).toBe(true);
  expect(isAgentAlive(impostor("bash"), "claude", {})).toBe(false);
});
