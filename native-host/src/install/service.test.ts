/**
 * The service runner with the service manager's commands injected: launchd's sequence (macOS cannot
 * run here), a manager's failure, and the state `vigil doctor` reads. The files go to a temporary
 * HOME. The whole flow against systemd runs in test/integration/service.test.ts.
 */
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { installService, NoServiceManagerError, type RunResult, serviceState, uninstallService } from "./service.js";
import type { ServiceSpec } from "./service-spec.js";

let home: string;
const real = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "vigil-service-unit-"));
  process.env.HOME = home; // os.homedir() reads it: the plist and the unit go below it
  delete process.env.XDG_CONFIG_HOME;
});
afterEach(() => {
  for (const [name, value] of Object.entries(real))
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  rmSync(home, { recursive: true, force: true });
});

const SECRET = "sk-ant-unit-secret";
const spec = (): ServiceSpec => ({
  node: "/usr/bin/node",
  script: "/opt/vigil/bin/vigil.js",
  home: join(home, ".vigil-other"),
  path: "/usr/bin:/bin",
  env: [{ name: "ANTHROPIC_API_KEY", value: SECRET }],
});

/** A service manager that answers from a table keyed by the command's first words, and records each call. */
function manager(platform: NodeJS.Platform, answers: Record<string, Partial<RunResult>>) {
  const calls: string[][] = [];
  const run = async (argv: string[]): Promise<RunResult> => {
    calls.push(argv);
    const key = Object.keys(answers).find((prefix) => argv.join(" ").startsWith(prefix));
    return { exitCode: 0, stdout: "", stderr: "", ...(key ? answers[key] : {}) };
  };
  return { calls, context: { run, platform, uid: 501 } };
}

describe("launchd (macOS)", () => {
  const plist = () => join(home, "Library", "LaunchAgents", "vigil.daemon.plist");

  test("install writes the plist 0600 with the values, then bootout (may fail), enable, bootstrap", async () => {
    const { calls, context } = manager("darwin", { "launchctl bootout": { exitCode: 113, stderr: "No such process" } });
    const said: string[] = [];
    const installing = installService({
      spec: spec(),
      home: join(home, ".vigil-other"),
      say: (line) => said.push(line),
      context,
      answerTimeoutMs: 100,
    });
    // No daemon runs here: the manager's side is all done, and the missing answer is reported.
    await expect(installing).rejects.toThrow(
      `The service started, but no daemon answers on ${join(home, ".vigil-other", "api.sock")}: see ${join(home, "Library", "Logs", "vigil.log")}`,
    );
    expect(calls).toEqual([
      ["launchctl", "print", "gui/501"],
      ["launchctl", "bootout", "gui/501/vigil.daemon"],
      ["launchctl", "enable", "gui/501/vigil.daemon"],
      ["launchctl", "print", "gui/501/vigil.daemon"],
      ["launchctl", "bootstrap", "gui/501", plist()],
    ]);
    expect(lstatSync(plist()).mode & 0o777).toBe(0o600);
    expect(readFileSync(plist(), "utf8")).toContain(`<key>ANTHROPIC_API_KEY</key>\n\t\t<string>${SECRET}</string>`);
    expect(said[0]).toBe(`wrote ${plist()} (0600: launchd reads no environment file, so it holds ANTHROPIC_API_KEY)`);
    expect(said.join("\n")).not.toContain(SECRET);
  });

  test("uninstall boots it out and removes the plist", async () => {
    const { calls, context } = manager("darwin", {});
    const said: string[] = [];
    await expect(installService({ spec: spec(), home, say: () => {}, context, answerTimeoutMs: 0 })).rejects.toThrow();
    await uninstallService({ home, say: (line) => said.push(line), context });
    expect(calls.slice(-1)).toEqual([["launchctl", "bootout", "gui/501/vigil.daemon"]]);
    expect(said).toEqual(["ran launchctl bootout gui/501/vigil.daemon", `removed ${plist()}`]);
    expect(existsSync(plist())).toBe(false);
  });

  test("serviceState reads launchctl print", async () => {
    const { context } = manager("darwin", {
      "launchctl print gui/501/vigil.daemon": {
        stdout: "gui/501/vigil.daemon = {\n\tstate = running\n\tpid = 321\n}\n",
      },
    });
    await expect(serviceState(context)).resolves.toEqual({
      manager: "launchd",
      installed: false,
      active: true,
      pid: 321,
      detail: "launchd: running, pid 321",
      files: [],
    });
  });
});

describe("systemd (Linux)", () => {
  test("an env file left looser (0644) is replaced by one that is 0600", async () => {
    const envFile = join(home, ".config", "vigil", "service.env");
    mkdirSync(dirname(envFile), { recursive: true });
    writeFileSync(envFile, "OLD=1\n", { mode: 0o644 });
    const { context } = manager("linux", {});
    await expect(installService({ spec: spec(), home, say: () => {}, context, answerTimeoutMs: 0 })).rejects.toThrow(
      "no daemon answers",
    );
    expect(lstatSync(envFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(envFile, "utf8")).toContain(`ANTHROPIC_API_KEY="${SECRET}"`);
    expect(readFileSync(envFile, "utf8")).not.toContain("OLD=1");
  });

  test("a command the manager refuses stops install with its words", async () => {
    const { context } = manager("linux", {
      "systemctl --user enable": { exitCode: 1, stderr: "Failed to enable unit: Unit file vigil.service is masked." },
    });
    await expect(installService({ spec: spec(), home, say: () => {}, context })).rejects.toThrow(
      "`systemctl --user enable vigil.service` failed (exit 1): Failed to enable unit: Unit file vigil.service is masked.",
    );
  });

  test("no user manager: install throws the refusal with the fallback line; serviceState says why", async () => {
    const { context } = manager("linux", {
      "systemctl --user show-environment": { exitCode: 1, stderr: "Failed to connect to bus: No medium found" },
    });
    const refused = installService({ spec: spec(), home, say: () => {}, context }).catch((error: unknown) => error);
    const error = (await refused) as NoServiceManagerError;
    expect(error).toBeInstanceOf(NoServiceManagerError);
    expect(error.message).toBe(
      "No service manager to run Vigil at login: systemctl --user cannot reach a systemd user manager (none runs in a container or CI): Failed to connect to bus: No medium found. Run the daemon in the background yourself instead:",
    );
    expect(error.fallback).toMatch(/^nohup .* serve >\/dev\/null 2>&1 &$/);
    await expect(serviceState(context)).resolves.toMatchObject({
      manager: null,
      installed: false,
      active: null,
      detail:
        "no service manager: systemctl --user cannot reach a systemd user manager (none runs in a container or CI): Failed to connect to bus: No medium found",
    });
  });

  test("another platform has no service manager", async () => {
    await expect(serviceState(manager("win32", {}).context)).resolves.toMatchObject({
      manager: null,
      detail: "no service manager: Vigil's service uses systemd (Linux) or launchd (macOS); this is win32",
    });
  });
});
