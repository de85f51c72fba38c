// A device to collect from, for the device tests and bench/device-latency.js (plain JS so the bench
// can import it; types in ssh-device.d.ts): a real sshd on a free port of 127.0.0.1, its host key,
// a client key, known_hosts and an ssh config in a temp dir, and two local users to log in as.
// DEVICE_USER has inotifywait on its PATH; PLAIN_USER logs in with a PATH that lacks it (only a
// POSIX shell's tools), whose `mkdir` blocks while the fixture's hang flag exists, so its fixed
// scripts hang on the device for real. Design: docs/design.md §5.
import { execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";

export const SSHD = "/usr/sbin/sshd";
export const INOTIFYWAIT = "/usr/bin/inotifywait";
export const DEVICE_USER = "vigil-dev";
export const PLAIN_USER = "vigil-dev-plain";

export const homeOf = (user) => `/home/${user}`;
export const spoolOf = (user) => join(homeOf(user), ".vigil", "tmp", "signals");

/** What PLAIN_USER's PATH holds: a POSIX shell and the tools the fixed scripts and the shell line use. */
const PLAIN_TOOLS = ["sh", "cat", "wc", "rm", "mv", "date", "sleep", "ls", "mktemp", "head", "tr"];

function hasUser(name) {
  try {
    execFileSync("id", [name], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Makes both users (root only); idempotent. */
export function ensureDeviceUsers() {
  if (process.getuid?.() !== 0)
    throw new Error(`A device runs sshd and logs in as ${DEVICE_USER} and ${PLAIN_USER}: run this as root`);
  for (const user of [DEVICE_USER, PLAIN_USER]) {
    if (!hasUser(user)) execFileSync("useradd", ["-m", "-s", "/bin/sh", user], { stdio: "ignore" });
    // useradd leaves the password locked ("!"); sshd without PAM then refuses even key logins.
    execFileSync("usermod", ["-p", "*", user], { stdio: "ignore" });
  }
  mkdirSync("/run/sshd", { recursive: true });
}

export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export const listening = (port) =>
  new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });

/** Every process below `pid` (read before a parent dies: its children are then reparented). */
export function descendants(pid) {
  const parent = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const found = [];
  const walk = (of) => {
    for (const [child, ppid] of parent) {
      if (ppid !== of) continue;
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

/** Live processes of `user` whose command name is `comm` (zombies excluded). */
export function processesOf(user, comm) {
  const uid = Number(execFileSync("id", ["-u", user], { encoding: "utf8" }).trim());
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const status = readFileSync(`/proc/${entry}/status`, "utf8");
        return (
          /^Name:\s+(.*)$/m.exec(status)?.[1] === comm &&
          Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]) === uid &&
          !/^State:\s+Z/m.test(status)
        );
      } catch {
        return false;
      }
    })
    .map(Number);
}

const hostKeyOf = (file) => readFileSync(file, "utf8").trim().split(" ").slice(0, 2).join(" ");

export class SshDevice {
  /** sshd is not running yet: call start(). */
  static async create() {
    const dir = mkdtempSync(join(tmpdir(), "vigil-sshd-"));
    chmodSync(dir, 0o755); // sshd reads authorized_keys, and PLAIN_USER runs its tools, from here
    return new SshDevice(dir, await freePort());
  }

  constructor(dir, port) {
    this.dir = dir;
    this.port = port;
    this.child = null;
    this.clientKey = join(dir, "client_key");
    /** Put first on the daemon's PATH: an `ssh` that reads this fixture's config and known_hosts. */
    this.binDir = join(dir, "bin");
    this.hangFlag = join(dir, "hang");
    this.config = join(dir, "ssh_config");
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, "host_key")]);
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", this.clientKey]);
    writeFileSync(join(dir, "authorized_keys"), readFileSync(`${this.clientKey}.pub`), { mode: 0o644 });
    const plainBin = join(dir, "plain-bin");
    mkdirSync(plainBin);
    for (const tool of PLAIN_TOOLS) symlinkSync(tool === "sh" ? "/bin/sh" : `/usr/bin/${tool}`, join(plainBin, tool));
    writeFileSync(
      join(plainBin, "mkdir"),
      `#!/bin/sh\nwhile [ -e ${this.hangFlag} ]; do /usr/bin/sleep 0.1; done\nexec /usr/bin/mkdir "$@"\n`,
      { mode: 0o755 },
    );
    writeFileSync(
      join(dir, "sshd_config"),
      [
        "ListenAddress 127.0.0.1",
        `HostKey ${join(dir, "host_key")}`,
        `PidFile ${join(dir, "sshd.pid")}`,
        `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
        "StrictModes no",
        "UsePAM no",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        `AllowUsers ${DEVICE_USER} ${PLAIN_USER}`,
        `Match User ${PLAIN_USER}`,
        `  SetEnv PATH=${plainBin}`,
        "",
      ].join("\n"),
    );
    writeFileSync(join(dir, "known_hosts"), `[127.0.0.1]:${port} ${hostKeyOf(join(dir, "host_key.pub"))}\n`);
    writeFileSync(
      this.config,
      `Host *\n  UserKnownHostsFile ${join(dir, "known_hosts")}\n  GlobalKnownHostsFile /dev/null\n`,
    );
    mkdirSync(this.binDir);
    writeFileSync(join(this.binDir, "ssh"), `#!/bin/sh\nexec /usr/bin/ssh -F ${this.config} "$@"\n`, { mode: 0o755 });
  }

  /** `user@127.0.0.1`, what `vigil devices add --ssh` takes. */
  target(user) {
    return `${user}@127.0.0.1`;
  }

  /** Known host key of this sshd (to pin another port to it, as an impostor test does). */
  get hostKey() {
    return hostKeyOf(join(this.dir, "host_key.pub"));
  }

  async start() {
    const child = spawn(SSHD, ["-D", "-e", "-f", join(this.dir, "sshd_config"), "-p", String(this.port)], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk.toString();
    });
    this.child = child;
    const deadline = Date.now() + 15_000;
    while (!(await listening(this.port))) {
      if (child.exitCode !== null) throw new Error(`sshd exited ${child.exitCode}: ${stderr}`);
      if (Date.now() > deadline) throw new Error(`sshd did not listen on ${this.port} within 15 s: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** The device goes offline: the listening sshd and every session it forked. */
  async stop() {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const sessions = descendants(child.pid);
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    for (const pid of sessions) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    await exited;
    this.child = null;
  }

  /** Runs `line` as `user` over SSH, as a job on that machine would; `{exitCode, stdout, stderr}`. */
  overSsh(user, line) {
    return execa(
      "/usr/bin/ssh",
      ["-F", this.config, "-i", this.clientKey, "-p", String(this.port), this.target(user), line],
      { reject: false },
    );
  }

  /** Runs `line` as `user` on the device without SSH (while sshd is down, or past a hang). */
  onDevice(user, line) {
    return execa("runuser", ["-u", user, "--", "env", `HOME=${homeOf(user)}`, "sh", "-c", line], { reject: false });
  }

  /** While on, PLAIN_USER's `mkdir` (the first thing of every fixed script) blocks. */
  setHang(on) {
    if (on) writeFileSync(this.hangFlag, "");
    else rmSync(this.hangFlag, { force: true });
  }

  async dispose() {
    this.setHang(false);
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
