/**
 * Is an agent session still open in a live process? While it is, the daemon holds its wakes for the
 * session's own hooks (never two writers on one session); once it is not, it resumes the session
 * headless. Both answers resist look-alikes: a recycled pid is not the agent (its start time
 * differs from the one recorded with the pid), and a lock on some other file, or one another user
 * holds, is not the thread's writer lock (/proc/locks is matched by device and inode, and the
 * holder must be this user's process).
 * Design: docs/design.md §6, §8.
 */
import { readFileSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { processStart } from "../../base/process-start.js";

export { processStart };

/** Claude Code's own record of a live process: `<config>/sessions/<pid>.json`, its `procStart`. */
function claudeRecordedStart(configDir: string, pid: number): string | null {
  try {
    const record = JSON.parse(readFileSync(join(configDir, "sessions", `${pid}.json`), "utf8")) as {
      pid?: unknown;
      procStart?: unknown;
    };
    return record.pid === pid && typeof record.procStart === "string" ? record.procStart : null;
  } catch {
    return null;
  }
}

/**
 * Is `pid` alive and still the agent, not a recycled pid? Where /proc tells: its start time is the
 * one recorded with the pid (`started`), else the one Claude Code recorded in its sessions file;
 * with neither (a record older than these), its command line names the agent. No /proc: the pid
 * alone decides.
 */
export function isAgentAlive(
  pid: number | undefined,
  agent: "claude" | "codex",
  recorded: { started?: string; configDir?: string } = {},
): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const start = processStart(pid);
  if (start === null) return !isProcMounted(); // gone meanwhile, or no /proc here
  if (recorded.started) return start === recorded.started;
  const claudeStart = agent === "claude" && recorded.configDir ? claudeRecordedStart(recorded.configDir, pid) : null;
  if (claudeStart !== null) return start === claudeStart;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").includes(agent);
  } catch {
    return false;
  }
}

function isProcMounted(): boolean {
  try {
    statSync("/proc/self/stat");
    return true;
  } catch {
    return false;
  }
}

/** A lock as /proc/locks lists it: who holds it, on which device (major:minor) and inode. */
export interface ProcLock {
  pid: number;
  device: string;
  ino: string;
}

/** The held locks in /proc/locks text (waiters, `->`, are not holders). */
export function parseProcLocks(text: string): ProcLock[] {
  return text.split("\n").flatMap((line) => {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 6 || fields[1] === "->") return [];
    // "MAJ:MIN:INODE": major and minor in hex (%02x), the inode in decimal.
    const where = /^([0-9a-f]+):([0-9a-f]+):(\d+)$/i.exec(fields[5] ?? "");
    if (!where) return [];
    const device = `${Number.parseInt(where[1] as string, 16)}:${Number.parseInt(where[2] as string, 16)}`;
    return [{ pid: Number(fields[4]), device, ino: where[3] as string }];
  });
}

/** "major:minor" of a Linux dev_t (glibc's encoding: 12 bits of major, 20 of minor, split). */
export function deviceName(dev: bigint): string {
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
  const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
  return `${major}:${minor}`;
}

/**
 * The device of the filesystem `path` is on, as /proc/self/mountinfo (and /proc/locks) name it: on
 * btrfs a subvolume's stat shows its own device, the locks list the filesystem's.
 */
export function mountDevice(path: string, mountinfo: string): string | null {
  let best: { point: string; device: string } | null = null;
  for (const line of mountinfo.split("\n")) {
    const fields = line.split(" ");
    const device = fields[2];
    const point = fields[4]?.replace(/\\([0-7]{3})/g, (_, octal: string) =>
      String.fromCharCode(Number.parseInt(octal, 8)),
    );
    if (!device || !point) continue;
    const inside = point === "/" || path === point || path.startsWith(`${point}/`);
    if (inside && (best === null || point.length >= best.point.length)) best = { point, device };
  }
  return best?.device ?? null;
}

/** Is `pid` a process of this user (the owner of its /proc entry)? */
function isOwnProcess(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    return statSync(`/proc/${pid}`).uid === process.getuid?.();
  } catch {
    return false;
  }
}

/**
 * Is a Codex thread open? Codex holds an exclusive flock on `thread-writer-locks/<id>.lock` in its
 * home while a process writes the thread; the kernel lists held locks in /proc/locks by device and
 * inode. Only a lock on this very file (its device and inode), held by a process of this user,
 * counts: another file with the same inode number on another filesystem, or another user who
 * locks this readable file, holds nothing.
 */
export function isCodexThreadOpen(codexHome: string, threadId: string): boolean {
  return codexThreadHolders(codexHome, threadId) !== null;
}

/**
 * The processes of this user holding a Codex thread's writer lock: null when nobody holds it, an
 * empty list when it may be held but /proc cannot say by whom (no /proc/locks here).
 */
export function codexThreadHolders(codexHome: string, threadId: string): number[] | null {
  const path = join(codexHome, "thread-writer-locks", `${threadId}.lock`);
  let file: { dev: bigint; ino: bigint };
  try {
    file = statSync(path, { bigint: true });
  } catch {
    return null;
  }
  let locks: ProcLock[];
  try {
    locks = parseProcLocks(readFileSync("/proc/locks", "utf8"));
  } catch {
    return []; // no /proc here: the lock file's presence is all there is to go by
  }
  const devices = new Set([deviceName(file.dev)]);
  try {
    const mounted = mountDevice(realpathSync(path), readFileSync("/proc/self/mountinfo", "utf8"));
    if (mounted) devices.add(mounted);
  } catch {
    // No mountinfo: the file's own device is all there is to go by.
  }
  const holders = lockHolders(locks, { devices, ino: String(file.ino) }, isOwnProcess);
  return holders.length > 0 ? holders : null;
}

/** The pids holding one of `locks` on this file (one of its device names and its inode), own processes only. */
export function lockHolders(
  locks: ProcLock[],
  file: { devices: ReadonlySet<string>; ino: string },
  isOwn: (pid: number) => boolean,
): number[] {
  return locks
    .filter((lock) => lock.ino === file.ino && file.devices.has(lock.device) && isOwn(lock.pid))
    .map((lock) => lock.pid);
}

/** Does one of `locks` lie on this file (one of its device names and its inode), held by an own process? */
export function isLockedBy(
  locks: ProcLock[],
  file: { devices: ReadonlySet<string>; ino: string },
  isOwn: (pid: number) => boolean,
): boolean {
  return lockHolders(locks, file, isOwn).length > 0;
}
