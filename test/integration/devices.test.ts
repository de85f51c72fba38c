/**
 * Devices over SSH (design.md §5), against a real sshd this file starts (test/devices/ssh-device.js;
 * test/devices/sshd.ts installs sshd and inotify-tools and makes the users): the daemon holds a
 * connection to each device, collects signal files from its own ~/.vigil/tmp/signals exactly once
 * (also across kill -9 at each step of a collection), parks bad ones there with a reason, and a
 * device file resolves only that device's waitpoints. One device (DEVICE_USER) has inotifywait and
 * is collected at once on each change; the daemon runs with VIGIL_DEVICE_SWEEP_MS=0, so nothing but
 * the inotify watch starts its rounds. The other (PLAIN_USER) has no inotifywait on its PATH and is
 * polled; its `mkdir` can be made to block, which hangs its collection for real. ssh gets the
 * fixture's config (known_hosts in a temp dir) through an `ssh` wrapper first on the daemon's PATH.
 */
import { execFileSync, spawn } from "node:child_process";
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  watch,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { LIST_SCRIPT, WATCH_SCRIPT } from "../../native-host/src/devices/listing.js";
import {
  DEVICE_USER,
  descendants,
  freePort,
  homeOf,
  listening,
  PLAIN_USER,
  processesOf,
  SSHD,
  SshDevice,
  spoolOf,
} from "../devices/ssh-device.js";
import { TestDaemon, waitFor } from "../helpers/daemon.js";

const SPOOL = spoolOf(DEVICE_USER);
const PLAIN_SPOOL = spoolOf(PLAIN_USER);

let ssh: SshDevice;
let daemon: TestDaemon;

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

const spoolFiles = (spool = SPOOL) => (existsSync(spool) ? readdirSync(spool).filter((n) => n !== "bad") : []);

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
  const armed = reply.body as { id: string; secret: string; how_to_signal: Record<string, string> };
  // The shell line reads the secret from a file the agent saved first (never from the command text):
  // here one file both device users can read.
  const secretFile = join(SECRETS, armed.id);
  writeFileSync(secretFile, `${armed.secret}\n`, { mode: 0o644 });
  armed.how_to_signal.shell = (armed.how_to_signal.shell as string).replaceAll("SECRET_FILE", secretFile);
  return armed;
}

const SECRETS = mkdtempSync(join(tmpdir(), "vigil-device-secrets-"));
chmodSync(SECRETS, 0o755);

const waitpoint = async (sid: string, id: string) =>
  (await daemon.api("GET", `/api/sessions/${sid}/waitpoints/${id}`)).body;

/** The wakes written for waitpoint `id`. */
const wakesOf = async (sid: string, id: string) =>
  ((await daemon.api("GET", `/api/sessions/${sid}/wakes`)).body as Array<{ monitors: string[] }>).filter((w) =>
    w.monitors.includes(id),
  );

/** Reads the daemon's database while it is down. */
function query<T>(sql: string, ...params: unknown[]): T[] {
  const db = new Database(join(daemon.home, "vigil.db"));
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

/** The id box got when it was added (signal keys and waitpoints name it), read while the daemon is down. */
const boxId = () => query<{ id: string }>("SELECT id FROM devices WHERE name = 'box'")[0]?.id;

async function addDevice(name: string, user: string) {
  const added = await daemon.cli([
    "devices",
    "add",
    name,
    "--ssh",
    ssh.target(user),
    "--port",
    String(ssh.port),
    "--identity",
    ssh.clientKey,
  ]);
  expect(added.exitCode, String(added.stderr)).toBe(0);
}

/** Starts the daemon with VIGIL_FAULT=`step` and waits until it killed itself there (SIGKILL). */
async function crashAt(step: "device-listed" | "device-stored") {
  daemon.env.VIGIL_FAULT = step;
  try {
    await daemon.spawn();
    const child = daemon.child;
    await waitFor(() => child?.signalCode === "SIGKILL", { what: `the daemon killed at ${step}`, timeoutMs: 30_000 });
  } finally {
    delete daemon.env.VIGIL_FAULT;
  }
}

beforeAll(async () => {
  ssh = await SshDevice.create();
  for (const user of [DEVICE_USER, PLAIN_USER]) rmSync(join(homeOf(user), ".vigil"), { recursive: true, force: true });
  await ssh.start();
  daemon = await TestDaemon.start({
    env: { PATH: `${ssh.binDir}:${process.env.PATH}`, VIGIL_DEVICE_SWEEP_MS: "0" },
  });
});

afterAll(async () => {
  await daemon?.dispose();
  await ssh?.dispose();
});

describe("devices over SSH", () => {
  test("vigil devices add connects with the given port and identity; the list says so in words", async () => {
    await addDevice("box", DEVICE_USER);
    await waitFor(async () => (await device("box"))?.state === "connected", { what: "box connected" });
    await waitFor(async () => (await device("box"))?.lastCollectionAt, { what: "a first collection" });
    await waitFor(async () => (await device("box"))?.collection === "inotify", { what: "box watched" });
    const listed = await daemon.cli(["devices"]);
    expect(listed.stdout).toMatch(
      new RegExp(
        `^box · ${DEVICE_USER}@127.0.0.1:${ssh.port} · connected \\(inotify\\) · collected \\S+ ago · 0 files collected$`,
        "m",
      ),
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
    const run = await ssh.overSsh(DEVICE_USER, `true; ${w.how_to_signal.shell}`);
    expect(run.exitCode, String(run.stderr)).toBe(0);
    const view = await daemon.waitForState(sid, w.id, ["ready", "finished"]);
    expect(view.lastEvent).toBe("ok: exit=0");
    const wp = await waitpoint(sid, w.id);
    expect(wp.device).toBe("box");
    expect(wp.signals.map((s: { via: string }) => s.via)).toEqual(["device"]);
    await waitFor(() => spoolFiles().length === 0, { what: "the device's spool emptied" });
    expect((await device("box"))?.filesCollected).toBe(1);
  });

  test("with inotifywait on the device, its watch alone starts the collection of each drop (no poll runs)", async () => {
    // VIGIL_DEVICE_SWEEP_MS=0: while the watch runs, nothing else starts a round.
    expect((await device("box"))?.collection).toBe("inotify");
    await waitFor(() => processesOf(DEVICE_USER, "inotifywait").length === 1, { what: "inotifywait on the device" });
    const sid = await daemon.newSession("dev");
    const w = await arm(sid, { device: "box", max_signals: 10 });
    for (let i = 1; i <= 3; i++) {
      expect((await ssh.overSsh(DEVICE_USER, w.how_to_signal.shell)).exitCode).toBe(0);
      await waitFor(async () => (await waitpoint(sid, w.id)).signals.length === i, { what: `drop ${i} collected` });
    }
    await waitFor(() => spoolFiles().length === 0, { what: "the device's spool emptied" });
    expect((await device("box"))?.collection).toBe("inotify");
    const log = readFileSync(join(daemon.home, "vigil.log"), "utf8");
    expect(log).toContain("device box: watching its spool with inotifywait");
    expect(log).not.toMatch(/device box: (the inotify watch ended|no inotifywait there)/);
  });

  test("a device without inotifywait on its PATH is polled, and its drops are collected", async () => {
    await addDevice("plain", PLAIN_USER);
    await waitFor(async () => (await device("plain"))?.collection === "poll", { what: "plain polled" });
    await waitFor(() => readFileSync(join(daemon.home, "vigil.log"), "utf8").includes("device plain: no inotifywait"), {
      what: "the log saying plain has no inotifywait",
    });
    expect(processesOf(PLAIN_USER, "inotifywait")).toEqual([]);
    expect((await daemon.cli(["devices"])).stdout).toMatch(/^plain · .* · connected \(polled\) · /m);
    const sid = await daemon.newSession("dev");
    const w = await arm(sid, { device: "plain" });
    const run = await ssh.overSsh(PLAIN_USER, w.how_to_signal.shell);
    expect(run.exitCode, String(run.stderr)).toBe(0);
    await daemon.waitForState(sid, w.id, ["ready", "finished"]);
    await waitFor(() => spoolFiles(PLAIN_SPOOL).length === 0, { what: "plain's spool emptied" });
    expect((await device("plain"))?.filesCollected).toBe(1);
  });

  test("files dropped while the device is offline are collected once each when it is back", async () => {
    const sid = await daemon.newSession("dev");
    const w = await arm(sid, { device: "box", max_signals: 10 });
    await ssh.stop();
    await waitFor(async () => (await device("box"))?.state === "offline", { what: "box offline" });
    expect((await device("box"))?.collection).toBeNull();
    for (let i = 0; i < 3; i++) expect((await ssh.onDevice(DEVICE_USER, w.how_to_signal.shell)).exitCode).toBe(0);
    expect(spoolFiles().filter((n) => n.endsWith(".json"))).toHaveLength(3);
    await ssh.start();
    await waitFor(async () => (await device("box"))?.state === "connected", {
      what: "box reconnected",
      timeoutMs: 30_000,
    });
    await waitFor(() => spoolFiles().length === 0, { what: "the device's spool emptied" });
    expect((await waitpoint(sid, w.id)).signals).toHaveLength(3);
    await waitFor(async () => (await device("box"))?.collection === "inotify", { what: "box watched again" });
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

  test("a file whose name holds a newline is left alone on the device, and the device's other files are still collected", async () => {
    const odd = join(SPOOL, "evil\nF 2 x.json");
    writeFileSync(odd, "{}");
    try {
      const sid = await daemon.newSession("dev");
      const w = await arm(sid, { device: "box" });
      expect((await ssh.overSsh(DEVICE_USER, w.how_to_signal.shell)).exitCode).toBe(0);
      await daemon.waitForState(sid, w.id, ["ready", "finished"]);
      await waitFor(() => spoolFiles().length === 1, { what: "all but the oddly named file collected" });
      expect(spoolFiles()).toEqual(["evil\nF 2 x.json"]);
      expect((await device("box"))?.state).toBe("connected");
      await waitFor(
        () =>
          readFileSync(join(daemon.home, "vigil.log"), "utf8").includes(
            "device box: left 1 file(s) with unusual names alone",
          ),
        { what: "the log saying so" },
      );
    } finally {
      rmSync(odd, { force: true });
    }
  });

  test("a device file naming a local waitpoint is refused and parked; the waitpoint hears nothing", async () => {
    const sid = await daemon.newSession("dev");
    const local = await arm(sid, {});
    const body = JSON.stringify({ id: local.id, secret: local.secret, status: "ok" });
    expect(
      (
        await ssh.overSsh(
          DEVICE_USER,
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
    expect((await ssh.overSsh(DEVICE_USER, w.how_to_signal.shell)).exitCode).toBe(0);
    await waitFor(async () => (await waitpoint(sid, w.id)).signals.length === 1, { what: "first signal" });
    await waitFor(() => spoolFiles().length === 0, { what: "the device's spool emptied" });
    await daemon.kill9();
    // A file under a name already collected (as if the daemon died between storing and removing).
    const [{ name: collected }] = query<{ name: string }>(
      "SELECT name FROM device_collected ORDER BY collected_at DESC LIMIT 1",
    );
    const again = JSON.stringify({ id: w.id, secret: w.secret, status: "ok", message: "again" });
    expect(
      (await ssh.onDevice(DEVICE_USER, `printf '%s' '${again}' > "$HOME/.vigil/tmp/signals/${collected}"`)).exitCode,
    ).toBe(0);
    expect((await ssh.onDevice(DEVICE_USER, w.how_to_signal.shell)).exitCode).toBe(0);
    await daemon.spawn();
    await waitFor(() => spoolFiles().length === 0, {
      what: "the device's spool emptied after the restart",
      timeoutMs: 30_000,
    });
    const signals = (await waitpoint(sid, w.id)).signals as Array<{ message: string }>;
    expect(signals.map((s) => s.message)).toEqual(["exit=0", "exit=0"]);
    expect((await device("box"))?.filesCollected).toBe(before + 2);
  });

  /** A device waitpoint, and one file dropped on the device (its shell line) while the daemon is stopped. */
  async function dropWhileStopped() {
    const sid = await daemon.newSession("dev");
    const w = await arm(sid, { device: "box", max_signals: 10 });
    await daemon.stop();
    expect((await ssh.onDevice(DEVICE_USER, w.how_to_signal.shell)).exitCode).toBe(0);
    const [file] = spoolFiles();
    expect(file).toMatch(/\.json$/);
    return { sid, w, file: file as string };
  }

  test("kill -9 after a signal is stored, before its file is removed: after the restart the file is removed and the wake came once", async () => {
    const { sid, w, file } = await dropWhileStopped();
    await crashAt("device-stored");
    // Died with the signal stored and the file still on the device, its removal not confirmed.
    expect(spoolFiles()).toEqual([file]);
    expect(query("SELECT status FROM signals WHERE key = ?", `device:${boxId()}:${file}`)).toEqual([{ status: "ok" }]);
    expect(query("SELECT removed_at FROM device_collected WHERE name = ?", file)).toEqual([{ removed_at: null }]);
    await daemon.spawn();
    await waitFor(() => spoolFiles().length === 0, { what: "the file removed after the restart", timeoutMs: 30_000 });
    await waitFor(async () => (await wakesOf(sid, w.id)).length > 0, { what: "the wake" });
    await waitFor(
      () =>
        query<{ removed_at: number | null }>("SELECT removed_at FROM device_collected WHERE name = ?", file)[0]
          ?.removed_at,
      { what: "the removal confirmed" },
    );
    expect((await waitpoint(sid, w.id)).signals).toHaveLength(1);
    expect(await wakesOf(sid, w.id)).toHaveLength(1);
  });

  test("kill -9 after listing, before storing: after the restart the file is stored once and removed", async () => {
    const { sid, w, file } = await dropWhileStopped();
    await crashAt("device-listed");
    expect(spoolFiles()).toEqual([file]);
    expect(query("SELECT status FROM signals WHERE key = ?", `device:${boxId()}:${file}`)).toEqual([]);
    expect(query("SELECT name FROM device_collected WHERE name = ?", file)).toEqual([]);
    await daemon.spawn();
    await waitFor(() => spoolFiles().length === 0, { what: "the file collected after the restart", timeoutMs: 30_000 });
    await waitFor(async () => (await wakesOf(sid, w.id)).length > 0, { what: "the wake" });
    const signals = (await waitpoint(sid, w.id)).signals as Array<{ message: string; via: string }>;
    expect(signals.map((s) => [s.via, s.message])).toEqual([["device", "exit=0"]]);
    expect(await wakesOf(sid, w.id)).toHaveLength(1);
  });

  test("kill -9 at the moment a device file leaves the spool: the restarted daemon answers /healthz and the signal is there once", async () => {
    const sid = await daemon.newSession("dev");
    const w = await arm(sid, { device: "box", max_signals: 10 });
    // Kill the daemon the instant the file is removed on the device (its ACT step is running).
    const gone = new Promise<void>((resolve) => {
      const watcher = watch(SPOOL, (_event, name) => {
        if (name?.endsWith(".json") && !existsSync(join(SPOOL, name))) {
          watcher.close();
          daemon.child?.kill("SIGKILL");
          resolve();
        }
      });
    });
    expect((await ssh.overSsh(DEVICE_USER, w.how_to_signal.shell)).exitCode).toBe(0);
    await gone;
    await daemon.kill9();
    await daemon.spawn();
    expect((await fetch(`${daemon.url}/healthz`)).ok).toBe(true);
    await waitFor(async () => (await waitpoint(sid, w.id)).signals.length === 1, { what: "the signal, once" });
    expect(spoolFiles()).toEqual([]);
  });

  test("a device whose collection hangs is in error saying so, the others keep collecting, and it recovers", async () => {
    await waitFor(async () => (await device("plain"))?.state === "connected", { what: "plain connected" });
    const sid = await daemon.newSession("dev");
    const onPlain = await arm(sid, { device: "plain" });
    const onBox = await arm(sid, { device: "box" });
    ssh.setHang(true); // plain's fixed scripts now block on the device
    try {
      // Dropped meanwhile on plain (without the blocked mkdir): it waits there.
      expect((await ssh.onDevice(PLAIN_USER, onPlain.how_to_signal.shell)).exitCode).toBe(0);
      const hung = await waitFor(
        async () => {
          const view = await device("plain");
          return view?.state === "error" ? view : null;
        },
        { what: "plain in error", timeoutMs: 45_000 },
      );
      expect(hung.lastError).toBe("collection failed: the device did not finish listing its spool within 20 s");
      expect((await daemon.cli(["devices"])).stdout).toMatch(
        /^plain · .* · error: collection failed: the device did not finish listing its spool within 20 s · /m,
      );
      // The other device collects as before.
      expect((await ssh.overSsh(DEVICE_USER, onBox.how_to_signal.shell)).exitCode).toBe(0);
      await daemon.waitForState(sid, onBox.id, ["ready", "finished"]);
      expect((await device("box"))?.state).toBe("connected");
      expect(spoolFiles(PLAIN_SPOOL)).toHaveLength(1);
    } finally {
      ssh.setHang(false);
    }
    await waitFor(async () => (await device("plain"))?.state === "connected", {
      what: "plain recovered",
      timeoutMs: 30_000,
    });
    await daemon.waitForState(sid, onPlain.id, ["ready", "finished"]);
    await waitFor(() => spoolFiles(PLAIN_SPOOL).length === 0, { what: "plain's spool emptied" });
  });

  test("a device that shows another host key than the known one is an error, never connected; rm ends its ssh", async () => {
    // A second sshd with its own host key, on a port known_hosts pins to the first one's.
    const port2 = await freePort();
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(ssh.dir, "other_host_key")]);
    writeFileSync(
      join(ssh.dir, "sshd2_config"),
      readFileSync(join(ssh.dir, "sshd_config"), "utf8")
        .replace(`HostKey ${join(ssh.dir, "host_key")}`, `HostKey ${join(ssh.dir, "other_host_key")}`)
        .replace(`PidFile ${join(ssh.dir, "sshd.pid")}`, `PidFile ${join(ssh.dir, "sshd2.pid")}`),
    );
    appendFileSync(join(ssh.dir, "known_hosts"), `[127.0.0.1]:${port2} ${ssh.hostKey}\n`);
    const impostor = spawn(SSHD, ["-D", "-e", "-f", join(ssh.dir, "sshd2_config"), "-p", String(port2)], {
      stdio: "ignore",
    });
    try {
      await waitFor(() => listening(port2), { what: "the second sshd listening" });
      const added = await daemon.cli([
        "devices",
        "add",
        "impostor",
        "--ssh",
        ssh.target(DEVICE_USER),
        "--port",
        String(port2),
        "--identity",
        ssh.clientKey,
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

  test("vigil devices rm closes the connection, ends the watch on the device and forgets the device", async () => {
    expect(sshArgsMention(String(ssh.port))).toBe(true); // the master connections, before
    expect(processesOf(DEVICE_USER, "inotifywait")).toHaveLength(1);
    for (const name of ["box", "plain"]) {
      const removed = await daemon.cli(["devices", "rm", name]);
      expect(removed.exitCode, String(removed.stderr)).toBe(0);
    }
    expect((await daemon.api("GET", "/api/devices")).body).toEqual([]);
    await waitFor(() => !sshArgsMention(String(ssh.port)), { what: "no ssh left for box and plain" });
    await waitFor(() => processesOf(DEVICE_USER, "inotifywait").length === 0, { what: "inotifywait ended on box" });
    expect((await daemon.cli(["devices", "rm", "box"])).exitCode).toBe(1);
    expect((await daemon.cli(["devices"])).stdout).toContain("no devices");
  });

  test("vigil devices rm ends the device's waitpoints (lost); a device added again under that name cannot signal them", async () => {
    await addDevice("box", DEVICE_USER);
    await waitFor(async () => (await device("box"))?.collection === "inotify", { what: "box watched" });
    const sid = await daemon.newSession("dev");
    const old = await arm(sid, { device: "box" });
    expect((await daemon.cli(["devices", "rm", "box"])).exitCode).toBe(0);
    expect((await waitpoint(sid, old.id)).state).toBe("orphaned");
    expect((await daemon.monitor(sid, old.id)).ending).toMatchObject({
      reason: "lost",
      detail: expect.stringContaining("its device box was removed (vigil devices rm)"),
    });
    await waitFor(async () => (await wakesOf(sid, old.id)).length === 1, { what: "the owner woken once" });

    await addDevice("box", DEVICE_USER); // the same name, a new device
    await waitFor(async () => (await device("box"))?.collection === "inotify", { what: "box watched again" });
    const parked = () => readdirSync(join(SPOOL, "bad")).filter((n) => n.endsWith(".json.reason"));
    const before = parked();
    expect((await ssh.overSsh(DEVICE_USER, old.how_to_signal.shell)).exitCode).toBe(0);
    const [reason] = await waitFor(
      () => {
        const added = parked().filter((n) => !before.includes(n));
        return added.length > 0 ? added : null;
      },
      { what: "the old waitpoint's file parked" },
    );
    expect(readFileSync(join(SPOOL, "bad", reason as string), "utf8")).toMatch(
      /^wrong_device: Waitpoint wp_\w+ was created for an earlier device named box, since removed, not for device box/,
    );
    expect((await waitpoint(sid, old.id)).signals).toEqual([]);
    expect((await daemon.cli(["devices", "rm", "box"])).exitCode).toBe(0);
  });
});

describe("the fixed scripts in a device's shell", () => {
  test("WATCH prints a line only for a .json renamed into the spool: not for writes, temporary files or other names", async () => {
    const home = mkdtempSync(join(tmpdir(), "vigil-watch-home-"));
    const spool = join(home, ".vigil", "tmp", "signals");
    mkdirSync(spool, { recursive: true });
    const watch = spawn("sh", ["-c", WATCH_SCRIPT], { env: { PATH: process.env.PATH, HOME: home } });
    let out = "";
    watch.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    const ended = new Promise((resolve) => watch.once("close", resolve));
    try {
      await waitFor(() => out.includes("Watches established."), { what: "the watch set up" });
      const before = out.length;
      for (let i = 0; i < 20; i++) writeFileSync(join(spool, "drop.json.tmp"), `{"n":${i}}`);
      writeFileSync(join(spool, "written-in-place.json"), "{}");
      execFileSync("sh", ["-c", LIST_SCRIPT], { env: { PATH: process.env.PATH, HOME: home } }); // LIST's own copy
      renameSync(join(spool, "drop.json.tmp"), join(spool, "drop.txt"));
      renameSync(join(spool, "drop.txt"), join(spool, "drop.json"));
      // inotify reports in order: once the last rename's line is here, any earlier event's would be too.
      await waitFor(() => out.length > before, { what: "a line for drop.json" });
      expect(out.slice(before)).toBe(".\n");
    } finally {
      watch.stdin.end(); // the daemon's side went away: the script ends inotifywait
      await ended;
      rmSync(home, { recursive: true, force: true });
    }
  });
});
