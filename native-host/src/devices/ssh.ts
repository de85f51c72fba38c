/**
 * Running the user's own `ssh` for a device (design.md §5): the options every call gets (BatchMode,
 * StrictHostKeyChecking, the device's control socket, port and key), one bounded run of a command
 * over the held-open master, and the line of ssh's stderr worth showing.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { DeviceRow } from "../store/devices.js";

/** How long one fixed script may run over the connection before it counts as hung. */
export const EXEC_TIMEOUT_MS = 20_000;
const MAX_OUTPUT = 8 * 1024 * 1024;

export interface SshRun {
  code: number | null;
  stdout: Buffer;
  stderr: string;
  /** Why it was killed: at the timeout, or past the output cap; null when it ended by itself. */
  killed: "timeout" | "output" | null;
}

/** The ssh options for `device` whose master listens on `control`. */
export function sshOptions(device: DeviceRow, control: string): string[] {
  return [
    "-o",
    "BatchMode=yes",
    "-o",
    "StrictHostKeyChecking=yes",
    "-o",
    `ControlPath=${control}`,
    ...(device.port !== null ? ["-p", String(device.port)] : []),
    ...(device.identity !== null ? ["-i", device.identity] : []),
  ];
}

export const sshTarget = (device: DeviceRow): string => (device.user ? `${device.user}@${device.host}` : device.host);

/**
 * Runs ssh with `args` and `input` on its stdin; kills it at `timeoutMs`. `children` holds it while
 * it runs (a stopped collector kills them all). A client of a master connection hands its pipes to
 * the master, so killing the client does not close them: a killed run lets go of its pipes (the
 * master then fails writing to them and closes the session) and answers at once.
 */
export function runSsh(
  program: string,
  args: string[],
  input: string,
  timeoutMs: number,
  children: Set<ChildProcess>,
): Promise<SshRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ["pipe", "pipe", "pipe"] });
    children.add(child);
    const out: Buffer[] = [];
    let size = 0;
    let stderr = "";
    let settled = false;
    const settle = (code: number | null, killed: SshRun["killed"]) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, stdout: Buffer.concat(out), stderr, killed });
    };
    const kill = (why: "timeout" | "output") => {
      child.kill("SIGKILL");
      for (const stream of [child.stdin, child.stdout, child.stderr]) stream.destroy();
      settle(null, why);
    };
    const timer = setTimeout(() => kill("timeout"), timeoutMs);
    child.stdout.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_OUTPUT) kill("output");
      else out.push(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-4096);
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end(input);
    child.on("error", (error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      children.delete(child);
      reject(error);
    });
    child.on("close", (code) => settle(code, null));
  });
}

/** The last line of ssh's stderr that says something (not the "Permanently added" notice). */
export function lastLine(text: string): string | undefined {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("Warning: Permanently added"))
    .at(-1);
}
