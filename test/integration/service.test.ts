/**
 * `vigil service install|uninstall|status` as a user runs it, in a temporary HOME: --dry-run; this
 * container, where no systemd user manager runs (the one-line refusal and the line to run
 * instead); and the whole flow against test/fixtures/fake-systemctl.js on PATH, which records each
 * call and runs the unit's ExecStart for real. No value --env names may show in any output, argv
 * or file other than the 0600 environment file.
 */
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa, type Result } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BIN, FIXTURES, isAlive, TestDaemon, waitFor } from "../helpers/daemon.js";

const SECRET = "sk-ant-service-secret-0123456789";
const OTHER_SECRET = "sk-openai-service-secret-9876543210";

let tmp: string;
let home: string;
let vigilHome: string;
let unitFile: string;
let envFile: string;

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "vigil-service-"));
  home = join(tmp, "home");
  vigilHome = join(tmp, "vigil-home");
  mkdirSync(home);
  unitFile = join(home, ".config", "systemd", "user", "vigil.service");
  envFile = join(home, ".config", "vigil", "service.env");
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** This process's environment without Vigil's or a session bus's, a temp HOME, the two secrets. */
function envWith(path: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined && !/^(VIGIL_|XDG_|DBUS_)/.test(name)) env[name] = value;
  const runtime = join(tmp, "run");
  mkdirSync(runtime, { recursive: true, mode: 0o700 });
  return {
    ...env,
    HOME: home,
    PATH: path,
    XDG_RUNTIME_DIR: runtime,
    ANTHROPIC_API_KEY: SECRET,
    OPENAI_API_KEY: OTHER_SECRET,
  };
}

const vigil = (path: string, ...args: string[]) =>
  execa(process.execPath, [BIN, "--home", vigilHome, "service", ...args], {
    env: envWith(path),
    extendEnv: false,
    reject: false,
  });

function expectNoSecret(result: Result): void {
  for (const secret of [SECRET, OTHER_SECRET]) {
    expect(String(result.stdout)).not.toContain(secret);
    expect(String(result.stderr)).not.toContain(secret);
  }
}

const exists = (path: string) => {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
};

test("--dry-run prints the unit and the environment file with names only, and writes nothing", async () => {
  const result = await vigil(process.env.PATH ?? "", "install", "--env", "ANTHROPIC_API_KEY", "--dry-run");
  expectNoSecret(result);
  expect(result.exitCode, String(result.stderr)).toBe(0);
  expect(result.stdout).toContain(`# ${unitFile} (mode 0644)`);
  expect(result.stdout).toContain(`ExecStart=${process.execPath} ${BIN} --home ${vigilHome} serve --port 0\n`);
  expect(result.stdout).toContain(`EnvironmentFile=${envFile}\n`);
  expect(result.stdout).toContain(`# ${envFile} (mode 0600)`);
  expect(result.stdout).toContain(`ANTHROPIC_API_KEY="<this shell's value, not shown>"`);
  expect(result.stdout).toContain("systemctl --user enable vigil.service\nsystemctl --user restart vigil.service");
  expect(exists(unitFile) || exists(envFile)).toBe(false);
});

describe("where no systemd user manager can be reached (this container, CI)", () => {
  test("install exits 1 with one line saying so and the line that runs the daemon instead, writing nothing", async () => {
    // The real systemctl when the machine has one: with no user bus it cannot reach a manager.
    const result = await vigil(process.env.PATH ?? "", "install", "--env", "ANTHROPIC_API_KEY");
    expectNoSecret(result);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe("");
    const [said, fallback, ...more] = String(result.stderr).split("\n");
    expect(said).toMatch(
      /^vigil: No service manager to run Vigil at login: (systemctl --user cannot reach a systemd user manager \(none runs in a container or CI\): .+|systemctl is not installed)\. Run the daemon in the background yourself instead:$/,
    );
    expect(fallback).toMatch(new RegExp(`^  nohup \\S+ --home ${vigilHome} serve >/dev/null 2>&1 &$`));
    expect(more).toEqual([]);
    expect(exists(unitFile) || exists(envFile)).toBe(false);
  });

  test("without systemctl on PATH it says systemctl is not installed; status says there is no manager", async () => {
    const empty = mkdtempSync(join(tmp, "empty-path-"));
    const install = await vigil(empty, "install");
    expect(install.exitCode).toBe(1);
    expect(install.stderr).toContain("No service manager to run Vigil at login: systemctl is not installed.");
    const status = await vigil(empty, "status");
    expect(status.exitCode).toBe(1);
    expect(status.stdout).toContain("service: no service manager: systemctl is not installed\n");
    expect(status.stdout).toContain(`daemon: none answers on ${join(vigilHome, "api.sock")}`);
    expect(status.stdout).toMatch(/instead run: nohup .* serve >\/dev\/null 2>&1 &$/);
  });
});

describe("with systemctl --user (a recording stand-in that runs the unit's ExecStart)", () => {
  let fakeDir: string;
  let path: string;
  const calls = () =>
    readFileSync(join(fakeDir, "calls.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as string[]);
  const servicePid = () =>
    (JSON.parse(readFileSync(join(fakeDir, "state.json"), "utf8")) as { pid: number | null }).pid;
  const daemonPid = () => (JSON.parse(readFileSync(join(vigilHome, "daemon.json"), "utf8")) as { pid: number }).pid;
  const SHOW = ["--user", "show", "-p", "LoadState,ActiveState,SubState,MainPID,UnitFileState", "vigil.service"];
  let outside: TestDaemon | undefined;

  beforeAll(() => {
    fakeDir = join(tmp, "fake-systemctl");
    mkdirSync(join(fakeDir, "bin"), { recursive: true });
    symlinkSync(join(FIXTURES, "fake-systemctl.js"), join(fakeDir, "bin", "systemctl"));
    path = `${join(fakeDir, "bin")}:${process.env.PATH}`;
    process.env.FAKE_SYSTEMCTL_DIR = fakeDir;
  });
  afterAll(async () => {
    delete process.env.FAKE_SYSTEMCTL_DIR;
    const pid = servicePid();
    if (pid !== null && isAlive(pid)) process.kill(pid, "SIGTERM");
    await outside?.stop();
  });

  test("install writes the unit and the 0600 env file, stops the daemon outside it, starts it, and it answers", async () => {
    outside = await TestDaemon.start({ home: vigilHome });
    const result = await vigil(path, "install", "--env", "ANTHROPIC_API_KEY", "--env", "OPENAI_API_KEY");
    expectNoSecret(result);
    expect(result.exitCode, String(result.stderr)).toBe(0);
    const pid = servicePid() as number;
    expect(String(result.stdout).split("\n")).toEqual([
      `wrote ${unitFile}`,
      `wrote ${envFile} (0600, the values of ANTHROPIC_API_KEY, OPENAI_API_KEY)`,
      "ran systemctl --user daemon-reload",
      "ran systemctl --user enable vigil.service",
      `stopped the daemon that ran outside the service (pid ${outside.pid}); the service's daemon takes over its monitors`,
      "ran systemctl --user restart vigil.service",
      `the daemon answers on ${join(vigilHome, "api.sock")} (pid ${pid}); it starts when you log in and stops after your last session ends (to keep it running without one: loginctl enable-linger). Logs: journalctl --user -u vigil`,
    ]);
    expect(isAlive(outside.pid)).toBe(false);
    expect(daemonPid()).toBe(pid);

    expect(lstatSync(unitFile).mode & 0o777).toBe(0o644);
    const unit = readFileSync(unitFile, "utf8");
    expect(unit).toContain(`ExecStart=${process.execPath} ${BIN} --home ${vigilHome} serve --port 0\n`);
    // This shell's PATH, so the agents' CLIs are found; npm's per-command entries (npx vitest's) left out.
    const unitPath = /^Environment=PATH=(.*)$/m.exec(unit)?.[1] ?? "";
    expect(unitPath.startsWith(`${join(fakeDir, "bin")}:`)).toBe(true);
    expect(unitPath.split(":")).toContain("/usr/bin");
    expect(unitPath).not.toContain("node_modules");
    expect(unit).toContain(`EnvironmentFile=${envFile}\nRestart=on-failure\n`);
    expect(unit).not.toContain(SECRET);
    expect(lstatSync(envFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(envFile, "utf8")).toContain(
      `\nANTHROPIC_API_KEY="${SECRET}"\nOPENAI_API_KEY="${OTHER_SECRET}"\n`,
    );
    expect(calls()).toEqual([
      ["--user", "show-environment"],
      ["--user", "daemon-reload"],
      ["--user", "enable", "vigil.service"],
      SHOW,
      ["--user", "restart", "vigil.service"],
    ]);
    // The values reached the daemon through the env file alone (argv carries none of them).
    expect(readFileSync(`/proc/${pid}/environ`, "utf8").split("\0")).toContain(`ANTHROPIC_API_KEY=${SECRET}`);
    expect(readFileSync(`/proc/${pid}/cmdline`, "utf8")).not.toContain(SECRET);
  });

  test("status reads the manager and asks the daemon", async () => {
    const pid = servicePid();
    const result = await vigil(path, "status");
    expect(result.exitCode, String(result.stdout)).toBe(0);
    expect(result.stdout).toBe(
      [
        `service: systemd: active (running), pid ${pid}, enabled at login`,
        `files: ${unitFile}, ${envFile}`,
        `daemon: answers on ${join(vigilHome, "api.sock")} (pid ${pid})`,
      ].join("\n"),
    );
    const json = JSON.parse(String((await vigil(path, "status", "--json")).stdout));
    expect(json).toMatchObject({
      manager: "systemd",
      installed: true,
      active: true,
      pid,
      daemon: { answers: true, pid },
    });
  });

  test("installing again rewrites the files and restarts the service (no --env: the env file goes)", async () => {
    const before = servicePid() as number;
    const callsBefore = calls().length;
    const result = await vigil(path, "install");
    expectNoSecret(result);
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(result.stdout).toContain(`removed ${envFile} (no --env names this time)`);
    expect(result.stdout).not.toContain("stopped the daemon");
    const after = servicePid() as number;
    expect(after).not.toBe(before);
    expect(isAlive(before)).toBe(false);
    await waitFor(() => daemonPid() === after, { what: "the restarted daemon's daemon.json" });
    expect(exists(envFile)).toBe(false);
    expect(readFileSync(unitFile, "utf8")).not.toContain("EnvironmentFile=");
    expect(
      calls()
        .slice(callsBefore)
        .map((call) => call[1]),
    ).toEqual(["show-environment", "daemon-reload", "enable", "show", "restart"]);
  });

  test("uninstall stops and disables it and removes its files; a second uninstall has nothing to remove", async () => {
    await vigil(path, "install", "--env", "ANTHROPIC_API_KEY");
    const pid = servicePid() as number;
    const callsBefore = calls().length;
    const result = await vigil(path, "uninstall");
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(String(result.stdout).split("\n")).toEqual([
      "ran systemctl --user disable --now vigil.service",
      `removed ${unitFile}`,
      `removed ${envFile}`,
      "ran systemctl --user daemon-reload",
    ]);
    expect(calls().slice(callsBefore)).toEqual([
      ["--user", "show-environment"],
      ["--user", "disable", "--now", "vigil.service"],
      ["--user", "daemon-reload"],
    ]);
    expect(isAlive(pid)).toBe(false);
    expect(exists(unitFile) || exists(envFile)).toBe(false);
    const again = await vigil(path, "uninstall");
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain(`nothing to remove: no ${unitFile}, no ${envFile}`);
    const status = await vigil(path, "status");
    expect(status.exitCode).toBe(1);
    expect(status.stdout).toContain("service: systemd: not installed\n");
    expect(status.stdout).toContain("install it: ");
  });
});
