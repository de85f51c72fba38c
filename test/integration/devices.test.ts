/**
 * Devices over SSH (design.md §5), against a real sshd this file starts (test/devices/sshd.ts
 * installs it and makes the user): the daemon holds a connection to the device, collects signal
 * files from its own ~/.vigil/tmp/signals exactly once, parks bad ones there with a reason, and a
 * device file resolves only that device's waitpoints. ssh gets its own config (known_hosts in a
 * temp dir) through an `ssh` wrapper first on the daemon's PATH.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DEVICE_USER, SSHD } from "../devices/sshd.js";
import { TestDaemon, waitFor } from "../helpers/daemon.js";

const USER_HOME = `/home/${DEVICE_USER}`;
const SPOOL = join(USER_HOME, ".vigil", "tmp", "signals");

let dir: string;
let port: number;
let sshd: ChildProcess | null = null;
let daemon: TestDaemon;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startSshd(): Promise<void> {
  const child = spawn(SSHD, ["-D", "-e", "-f", join(dir, "sshd_config"), "-p", String(port)], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  sshd = child;
  await waitFor(
    () => {
      if (child.exitCode !== null) throw new Error(`sshd exited ${child.exitCode}: ${stderr}`);
      return new Promise<boolean>((resolve) => {
        const socket = connect(port, "127.0.0.1", () => {
          socket.destroy();
          resolve(true);
        });
        socket.on("error", () => resolve(false));
      });
    },
    { what: "sshd listening" },
  );
}

/** Every process below `pid` (read before the listener dies: its children are then reparented). */
function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const found: number[] = [];
  const walk = (of: number) => {
    for (const [child, ppid] of parent) {
      if (ppid !== of) continue;
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

/** The device goes offline: the listening sshd and every session it forked. */
async function stopSshd(): Promise<void> {
  const child = sshd;
  if (!child || child.exitCode !== null) return;
  const sessions = descendants(child.pid as number);
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
  sshd = null;
}

/** Runs `line` as the device user over SSH, as a job on that machine would. */
function overSsh(line: string) {
  return execa(
    "/usr/bin/ssh",
    [
      "-F",
      join(dir, "ssh_config"),
      "-i",
      join(dir, "client_key"),
      "-p",
      String(port),
      `${DEVICE_USER}@127.0.0.1`,
      line,
    ],
    { reject: false },
  );
}

/** Runs `line` as the device user on the device while sshd is down. */
function onDevice(line: string) {
  return execa("runuser", ["-u", DEVICE_USER, "--", "env", `HOME=${USER_HOME}`, "sh", "-c", line], {
    reject: false,
  });
}

const listening = (at: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(at, "127.0.0.1", () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });

/** Whether any ssh process of the daemon's has `text` among its arguments. */
function sshArgsMention(text: string): boolean {
  return descendants(daemon.child?.pid as number).some((pid) => {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      return argv.some((arg) => arg.endsWith("ssh")) && argv.includes(text);
    } catch {
      return false;
    }
  });
}

const spoolFiles = () => (existsSync(SPOOL) ? readdirSync(SPOOL).filter((n) => n !== "bad") : []);

async function device(name: string) {
  const list = (await daemon.api("GET", "/api/devices")).body as Array<Record<string, any>>;
  return list.find((d) => d.name === name);
}

async function arm(sid: string, body: Record<string, unknown>) {
  const reply = await daemon.api("POST", `/api/sessions/${sid}/waitpoints`, {
    label: "job",
    intent: "resume",
    ...body,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body as { id: string; secret: string; how_to_signal: Record<string, string> };
}

const waitpoint = async (sid: string, id: string) =>
  (await daemon.api("GET", `/api/sessions/${sid}/waitpoints/${id}`)).body;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "vigil-sshd-"));
  chmodSync(dir, 0o755); // sshd reads authorized_keys as the device user
  port = await freePort();
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, "host_key")]);
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, "client_key")]);
  writeFileSync(join(dir, "authorized_keys"), readFileSync(join(dir, "client_key.pub")), { mode: 0o644 });
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
      `AllowUsers ${DEVICE_USER}`,
      "",
    ].join("\n"),
  );
  const hostKey = readFileSync(join(dir, "host_key.pub"), "utf8").trim().split(" ").slice(0, 2).join(" ");
  writeFileSync(join(dir, "known_hosts"), `[127.0.0.1]:${port} ${hostKey}\n`);
  writeFileSync(
    join(dir, "ssh_config"),
    `Host *\n  UserKnownHostsFile ${join(dir, "known_hosts")}\n  GlobalKnownHostsFile /dev/null\n`,
  );
  execFileSync("mkdir", ["-p", join(dir, "bin")]);
  writeFileSync(join(dir, "bin", "ssh"), `#!/bin/sh\nexec /usr/bin/ssh -F ${join(dir, "ssh_config")} "$@"\n`, {
    mode: 0o755,
  });
  rmSync(join(USER_HOME, ".vigil"), { recursive: true, force: true });
  await startSshd();
  daemon = await TestDaemon.start({ env: { PATH: `${join(dir, "bin")}:${process.env.PATH}` } });
});

afterAll(async () => {
  await daemon?.dispose();
  await stopSshd();
  rmSync(dir, { recursive: true, force: true });
});

describe("devices over SSH", () => {
  test("vigil devices add connects with the given port and identity; the list says so in words", async () => {
    const added = await daemon.cli([
      "devices",
      "add",
      "box",
      "--ssh",
      `${DEVICE_USER}@127.0.0.1`,
      "--port",
      String(port),
      "--identity",
      join(dir, "client_key"),
    ]);
    expect(added.exitCode, String(added.stderr)).toBe(0);
    await waitFor(async () => (await device("box"))?.state === "connected", { what: "box connected" });
    await waitFor(async () => (await device("box"))?.lastCollectionAt, { what: "a first collection" });
    const listed = await daemon.cli(["devices"]);
    expect(listed.stdout).toMatch(
      new RegExp(`^box · ${DEVICE_USER}@127.0.0.1:${port} · connected · collected \\S+ ago · 0 files collected$`, "m"),
    );
    expect((await daemon.cli(["devices", "add", "box", "--ssh", "h"])).exitCode).toBe(1);
    expect((await daemon.cli(["devices", "add", "x", "--ssh", "-oProxyCommand=x"])).exitCode).toBe(1);
    expect((await daemon.cli(["devices", "add", "x", "--ssh", "h", "--port", "0"])).exitCode).toBe(2);
  });

  test("wait_create for an unknown device is refused naming the known ones", async () => {
    const sid = await daemon.newSession("dev");
    const reply = await daemon.api("POST", `/api/sessions/${sid}/waitpoints`, {
      label: "job",
      intent: "resume",
      device: "nope",
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toContain('Unknown device "nope"; known devices: box');
  });

  test("the how_to_signal.shell line run on the device wakes the waitpoint, and the file is gone", async () => {
    const sid = await daemon.newSession("dev");
    const w = await arm(sid, { device: "box" });
    expect(w.how_to_signal.recommended).toBe("shell");
    expect(w.how_to_signal.shell).toContain('d="$HOME/.vigil/tmp/signals"');
    const run = await overSsh(`true; ${w.how_to_signal.shell}`);
    expect(run.exitCode, String(run.stderr)).toBe(0);
    const view = await daemon.waitForState(sid, w.id, ["ready", "finished"]);
    expect(view.lastEvent).toBe("ok: exit=0");
    const wp = await waitpoint(sid, w.id);
    expect(wp.device).toBe("box");
    expect(wp.signals.map((s: { via: string }) => s.via)).toEqual(["device"]);
    await waitFor(() => spoolFiles().length === 0, { what: "the device's spool emptied" });
    expect((await device("box"))?.filesCollected).toBe(1);
  });

  test("files dropped while the device is offline are collected once each when it is back", async () => {
    const sid = await daemon.newSession("dev");
    const w = await arm(sid, { device: "box", max_signals: 10 });
    await stopSshd();
    await waitFor(async () => (await device("box"))?.state === "offline", { what: "box offline" });
    for (let i = 0; i < 3; i++) expect((await onDevice(w.how_to_signal.shell)).exitCode).toBe(0);
    expect(spoolFiles().filter((n) => n.endsWith(".json"))).toHaveLength(3);
    await startSshd();
    await waitFor(async () => (await device("box"))?.state === "connected", {
      what: "box reconnected",
      timeoutMs: 30_000,
    });
    await waitFor(() => spoolFiles().length === 0, { what: "the device's spool emptied" });
    expect((await waitpoint(sid, w.id)).signals).toHaveLength(3);
  });

  test("a bad file is parked in the device's bad/ with a reason that quotes none of it", async () => {
    writeFileSync(join(SPOOL, "garbage.json"), "secret-ish text {");
    await waitFor(() => existsSync(join(SPOOL, "bad", "garbage.json.reason")), { what: "garbage parked" });
    const reason = readFileSync(join(SPOOL, "bad", "garbage.json.reason"), "utf8");
    expect(reason).toMatch(/^Expected a JSON signal, got text that is not valid JSON/);
    expect(reason).not.toContain("secret-ish");
    expect(existsSync(join(SPOOL, "bad", "garbage.json"))).toBe(true);
    expect(existsSync(join(SPOOL, "garbage.json"))).toBe(false);
  });

  test("a device file naming a local waitpoint is refused and parked; the waitpoint hears nothing", async () => {
    const sid = await daemon.newSession("dev");
    const local = await arm(sid, {});
    const body = JSON.stringify({ id: local.id, secret: local.secret, status: "ok" });
    expect(
      (
        await overSsh(
          `mkdir -p .vigil/tmp/signals && printf '%s' '${body}' > .vigil/tmp/signals/x.tmp && mv .vigil/tmp/signals/x.tmp .vigil/tmp/signals/local.json`,
        )
      ).exitCode,
    ).toBe(0);
    await waitFor(() => existsSync(join(SPOOL, "bad", "local.json.reason")), { what: "local.json parked" });
    expect(readFileSync(join(SPOOL, "bad", "local.json.reason"), "utf8")).toMatch(
      /^wrong_device: Waitpoint wp_\w+ was created for this machine, not for device box/,
    );
    expect((await waitpoint(sid, local.id)).signals).toEqual([]);
  });

  test("after kill -9 of the daemon, files are collected once; a name already collected is removed, not applied again", async () => {
    const sid = await daemon.newSession("dev");
    const w = await arm(sid, { device: "box", max_signals: 10 });
    const before = (await device("box"))?.filesCollected as number;
    expect((await overSsh(w.how_to_signal.shell)).exitCode).toBe(0);
    await waitFor(async () => (await waitpoint(sid, w.id)).signals.length === 1, { what: "first signal" });
    await waitFor(() => spoolFiles().length === 0, { what: "the device's spool emptied" });
    await daemon.kill9();
    // A file under a name already collected (as if the daemon died between storing and removing).
    const db = new Database(join(daemon.home, "vigil.db"));
    const { name: collected } = db
      .prepare("SELECT name FROM device_collected ORDER BY collected_at DESC LIMIT 1")
      .get() as {
      name: string;
    };
    db.close();
    const again = JSON.stringify({ id: w.id, secret: w.secret, status: "ok", message: "again" });
    expect((await onDevice(`printf '%s' '${again}' > "$HOME/.vigil/tmp/signals/${collected}"`)).exitCode).toBe(0);
    expect((await onDevice(w.how_to_signal.shell)).exitCode).toBe(0);
    await daemon.spawn();
    await waitFor(() => spoolFiles().length === 0, {
      what: "the device's spool emptied after the restart",
      timeoutMs: 30_000,
    });
    const signals = (await waitpoint(sid, w.id)).signals as Array<{ message: string }>;
    expect(signals.map((s) => s.message)).toEqual(["exit=0", "exit=0"]);
    expect((await device("box"))?.filesCollected).toBe(before + 2);
  });

  test("a device that shows another host key than the known one is an error, never connected; rm ends its ssh", async () => {
    // A second sshd with its own host key, on a port known_hosts pins to the first one's.
    const port2 = await freePort();
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, "other_host_key")]);
    writeFileSync(
      join(dir, "sshd2_config"),
      readFileSync(join(dir, "sshd_config"), "utf8")
        .replace(`HostKey ${join(dir, "host_key")}`, `HostKey ${join(dir, "other_host_key")}`)
        .replace(`PidFile ${join(dir, "sshd.pid")}`, `PidFile ${join(dir, "sshd2.pid")}`),
    );
    const pinned = readFileSync(join(dir, "host_key.pub"), "utf8").trim().split(" ").slice(0, 2).join(" ");
    appendFileSync(join(dir, "known_hosts"), `[127.0.0.1]:${port2} ${pinned}\n`);
    const impostor = spawn(SSHD, ["-D", "-e", "-f", join(dir, "sshd2_config"), "-p", String(port2)], {
      stdio: "ignore",
    });
    try {
      await waitFor(() => listening(port2), { what: "the second sshd listening" });
      const added = await daemon.cli([
        "devices",
        "add",
        "impostor",
        "--ssh",
        `${DEVICE_USER}@127.0.0.1`,
        "--port",
        String(port2),
        "--identity",
        join(dir, "client_key"),
      ]);
      expect(added.exitCode, String(added.stderr)).toBe(0);
      const failed = await waitFor(
        async () => {
          const view = await device("impostor");
          return view?.state === "error" ? view : null;
        },
        { what: "impostor in error" },
      );
      expect(failed.lastError).toMatch(/host key/i);
      expect(failed.lastCollectionAt).toBeNull();
      expect((await daemon.cli(["devices"])).stdout).toMatch(/^impostor · .* · error: .*host key/im);
      expect((await daemon.cli(["devices", "rm", "impostor"])).exitCode).toBe(0);
      // Removed: no ssh of the daemon's still names that port.
      await waitFor(() => !sshArgsMention(String(port2)), { what: "no ssh left for the removed device" });
    } finally {
      impostor.kill("SIGKILL");
    }
  });

  test("vigil devices rm closes the connection and forgets the device", async () => {
    expect(sshArgsMention(String(port))).toBe(true); // its master connection, before
    const removed = await daemon.cli(["devices", "rm", "box"]);
    expect(removed.exitCode, String(removed.stderr)).toBe(0);
    expect((await daemon.api("GET", "/api/devices")).body).toEqual([]);
    await waitFor(() => !sshArgsMention(String(port)), { what: "no ssh left for box" });
    expect((await daemon.cli(["devices", "rm", "box"])).exitCode).toBe(1);
    expect((await daemon.cli(["devices"])).stdout).toContain("no devices");
  });
});
