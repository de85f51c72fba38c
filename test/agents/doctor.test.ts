/**
 * `vigil doctor` and `vigil setup` against the real agent CLIs (the cached tested versions on a login
 * shell's PATH), a PATH without them, and a fake `claude` printing an untested version; `vigil` in
 * each login shell (bash, zsh, fish: installed with apt when missing, else the run fails saying so);
 * hooks whose program is gone; a real daemon and the real native host; exit codes and --json.
 * A temporary HOME; commands run as the user types them, with nothing of the test run's environment.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findOrInstall } from "../helpers/apt.js";
import { BIN, TestDaemon, waitFor } from "../helpers/daemon.js";
import { NativePort } from "../helpers/native-port.js";
import { readIfThere } from "../helpers/setup-home.js";
import { cliBinDir } from "./agent-clis.js";

let root: string;
let home: string;
let daemon: TestDaemon;
const launcher = () => join(home, ".local", "bin", "vigil");

beforeAll(async () => {
  findOrInstall({ name: "zsh", paths: ["/usr/bin/zsh", "/bin/zsh"], aptPackage: "zsh" });
  findOrInstall({ name: "fish", paths: ["/usr/bin/fish", "/bin/fish"], aptPackage: "fish" });
  root = mkdtempSync(join(tmpdir(), "vigil-doctor-"));
  home = join(root, "home");
  mkdirSync(home);
  daemon = await TestDaemon.start({ env: { HOME: home } });
});

afterAll(async () => {
  await daemon.dispose();
  rmSync(root, { recursive: true, force: true });
});

/** The user's terminal: this HOME, bash, node and the system on PATH, no VIGIL_DATABASE_URL. */
const vigil = (...args: string[]) => vigilWithPath([], ...args);

/** The same, with `dirs` first on PATH. */
const vigilWithPath = (dirs: string[], ...args: string[]) =>
  execa(process.execPath, [BIN, "--home", daemon.home, ...args], {
    env: {
      HOME: home,
      USER: process.env.USER ?? "user",
      SHELL: "/bin/bash",
      LANG: "C.UTF-8",
      PATH: [...dirs, dirname(process.execPath), "/usr/bin", "/bin"].join(":"),
    },
    extendEnv: false,
    reject: false,
    timeout: 120_000,
  });

/** ~/.profile: the user's own lines (`own`), then whatever setup appended to it before. */
function setProfile(own: string): void {
  const path = join(home, ".profile");
  let text = "";
  try {
    text = readFileSync(path, "utf8");
  } catch {
    // none yet
  }
  const vigilBlock = /# >>> vigil[\s\S]*# <<< vigil <<<\n/.exec(text)?.[0] ?? "";
  writeFileSync(path, `${own}${vigilBlock}`);
}

const onPath = (dir: string) => `PATH="${dir}:$PATH"\n`;

const TESTED_CLAUDE_FIX = "npm install -g @anthropic-ai/claude-code@2.1.328";

describe("the agent's CLI", () => {
  test("missing: setup still writes the config but warns with the install command and does not say to start it; doctor fails", async () => {
    setProfile("");
    const setup = await vigil("setup", "claude-code");
    expect(setup.exitCode, setup.stderr).toBe(0);
    expect(setup.stderr).toContain(
      `warning: Claude Code is not installed: bash's login shell does not find claude (bash -lc 'command -v claude'). Install it: ${TESTED_CLAUDE_FIX}`,
    );
    expect(setup.stdout).not.toContain("Start Claude Code");
    expect(setup.stdout).toContain(`Vigil is set up for Claude Code. Once it is installed (${TESTED_CLAUDE_FIX})`);
    expect(readFileSync(join(home, ".claude", "settings.json"), "utf8")).toContain(" hook claude session-start");

    const doctor = await vigil("doctor");
    expect(doctor.exitCode).toBe(1);
    expect(doctor.stdout).toContain(
      `FIX  Claude Code is set up but not installed: bash's login shell does not find claude (bash -lc 'command -v claude'), so Vigil can resume none of its sessions → ${TESTED_CLAUDE_FIX}\n`,
    );
  });

  test("found by the login shell at a tested version: setup says to start it, doctor says ok for each agent", async () => {
    setProfile(onPath(cliBinDir()));
    const setup = await vigil("setup", "codex");
    expect(setup.exitCode, setup.stderr).toBe(0);
    expect(setup.stderr).not.toContain("warning");
    expect(setup.stdout).toContain("Start Codex and ask it to wait for something");

    const doctor = (await vigil("doctor")).stdout;
    expect(doctor).toContain(
      `ok   Claude Code: claude 2.1.328 (${join(cliBinDir(), "claude")}), a version Vigil was tested with\n`,
    );
    expect(doctor).toContain(
      `ok   Codex: codex 0.169.0 (${join(cliBinDir(), "codex")}), a version Vigil was tested with\n`,
    );
  });

  test("a version Vigil was not tested with: doctor fails naming it and the tested one, setup warns", async () => {
    const fake = join(root, "fake-bin");
    mkdirSync(fake, { recursive: true });
    writeFileSync(join(fake, "claude"), '#!/bin/sh\necho "9.9.9 (Claude Code)"\n', { mode: 0o755 });
    setProfile(onPath(cliBinDir()) + onPath(fake));
    const doctor = await vigil("doctor");
    expect(doctor.exitCode).toBe(1);
    expect(doctor.stdout).toContain(
      `FIX  Claude Code: ${join(fake, "claude")} is version 9.9.9, not one Vigil was tested with (2.1.328) → ${TESTED_CLAUDE_FIX}\n`,
    );
    const setup = await vigil("setup", "claude-code");
    expect(setup.stderr).toContain(
      `warning: ${join(fake, "claude")} is Claude Code 9.9.9; Vigil was tested with 2.1.328 (${TESTED_CLAUDE_FIX})`,
    );
    setProfile(onPath(cliBinDir()));
  });
});

describe("vigil in every login shell", () => {
  const zprofile = () => join(home, ".zprofile");
  const fishFile = () => join(home, ".config", "fish", "conf.d", "vigil.fish");
  const withoutBlock = (path: string) =>
    writeFileSync(path, readFileSync(path, "utf8").replace(/# >>> vigil[\s\S]*# <<< vigil <<<\n/, ""));

  test("setup puts ~/.local/bin on PATH for bash, zsh and fish; doctor asks each; what is taken out is named with its fix", async () => {
    const ok = (await vigil("doctor")).stdout;
    for (const shell of ["bash", "zsh", "fish"])
      expect(ok).toContain(`ok   ${shell}'s login shell finds vigil: ${launcher()}\n`);

    withoutBlock(zprofile());
    rmSync(fishFile());
    withoutBlock(join(home, ".profile"));
    const broken = await vigil("doctor");
    expect(broken.exitCode).toBe(1);
    for (const [shell, file] of [
      ["bash", "~/.profile"],
      ["zsh", "~/.zprofile"],
      ["fish", "~/.config/fish/conf.d/vigil.fish"],
    ])
      expect(broken.stdout).toMatch(
        new RegExp(
          `FIX  ${shell}'s login shell does not find vigil \\(${shell} -lc 'command -v vigil': not found\\); an agent's \`vigil wait …\` there would fail → \\S+ setup claude-code \\(puts ~/\\.local/bin on PATH in ${file.replaceAll(".", "\\.")}\\)\n`,
        ),
      );

    expect((await vigil("setup", "claude-code")).exitCode).toBe(0);
    const mended = (await vigil("doctor")).stdout;
    for (const shell of ["bash", "zsh", "fish"]) expect(mended).toContain(`ok   ${shell}'s login shell finds vigil`);
  });
});

describe("hooks, the daemon, the browser: every check ok is exit 0", () => {
  test("a hook whose program is not executable is named, with the setup command that mends it", async () => {
    chmodSync(launcher(), 0o644);
    try {
      const doctor = await vigil("doctor");
      expect(doctor.exitCode).toBe(1);
      expect(doctor.stdout).toMatch(
        new RegExp(
          `FIX  claude-code's hooks run ${launcher()}, which does not exist or is not executable → \\S+ setup claude-code\n`,
        ),
      );
    } finally {
      chmodSync(launcher(), 0o755);
    }
  });

  test("with the native host installed and a browser on it, doctor prints only ok lines and exits 0; --json says the same", async () => {
    mkdirSync(join(home, ".config", "chromium"), { recursive: true });
    expect((await vigil("install")).exitCode).toBe(0);
    const port = NativePort.open(daemon.home);
    try {
      await waitFor(async () => (await daemon.api("GET", "/api/status")).body.browserConnected, { what: "the bridge" });
      const doctor = await vigil("doctor");
      const lines = doctor.stdout.trim().split("\n");
      expect(
        lines.filter((line) => !line.startsWith("ok   ")),
        doctor.stdout,
      ).toEqual([]);
      expect(doctor.exitCode).toBe(0);
      expect(lines).toContain(
        `ok   daemon (pid ${daemon.pid}) answers /api/status on ${join(daemon.home, "api.sock")}`,
      );
      expect(doctor.stdout).toContain(`ok   chromium: ${join(home, ".config", "chromium", "NativeMessagingHosts")}`);
      expect(lines).toContain("ok   a browser with the Vigil extension is connected");

      const json = await vigil("doctor", "--json");
      expect(json.exitCode).toBe(0);
      const report = JSON.parse(json.stdout);
      expect(report.ok).toBe(true);
      expect(report.findings.length).toBe(lines.length);
      expect(report.findings.every((finding: { ok: boolean }) => finding.ok)).toBe(true);
    } finally {
      await port.close();
    }
  });

  test("no daemon on the socket: one line with the command that starts it, exit 1, and --json says ok false", async () => {
    const elsewhere = join(root, "no-daemon");
    const doctor = await execa(process.execPath, [BIN, "--home", elsewhere, "doctor", "--json"], {
      env: { HOME: home, PATH: [dirname(process.execPath), "/usr/bin", "/bin"].join(":") },
      extendEnv: false,
      reject: false,
    });
    expect(doctor.exitCode).toBe(1);
    const report = JSON.parse(doctor.stdout);
    expect(report.ok).toBe(false);
    expect(report.findings).toContainEqual({
      ok: false,
      what: `no daemon answers on ${join(elsewhere, "api.sock")}`,
      fix: expect.stringMatching(new RegExp(`--home ${elsewhere} serve \\(or .*vigil service install\\)$`)),
    });
  });
});

test("setup --remove takes out the shell files it wrote and keeps the user's own lines", async () => {
  setProfile("# mine\n");
  for (const agent of ["claude-code", "codex"]) expect((await vigil("setup", agent, "--remove")).exitCode).toBe(0);
  expect(readFileSync(join(home, ".profile"), "utf8")).toBe("# mine\n");
  // The test emptied ~/.zprofile of Vigil's block once (a user's edit), so what remains is that: empty.
  expect(readIfThere(join(home, ".zprofile")) ?? "").toBe("");
  expect(() => readFileSync(join(home, ".config", "fish", "conf.d", "vigil.fish"))).toThrow();
});

test("vigil installed elsewhere on PATH (as a global npm install puts it): setup writes no launcher nor shell file, and doctor says which folder each shell lacks", async () => {
  const global = join(root, "global-bin");
  mkdirSync(global, { recursive: true });
  symlinkSync(BIN, join(global, "vigil"));
  const setup = await vigilWithPath([global], "setup", "claude-code");
  expect(setup.exitCode, setup.stderr).toBe(0);
  expect(setup.stdout).toContain(`vigil is on PATH already: ${join(global, "vigil")}`);
  expect(existsSync(launcher())).toBe(false);
  expect(readIfThere(join(home, ".zprofile")) ?? "").not.toContain("vigil");

  const doctor = await vigilWithPath([global], "doctor");
  expect(doctor.exitCode).toBe(1);
  expect(doctor.stdout).toContain(
    `FIX  zsh's login shell does not find vigil (zsh -lc 'command -v vigil': not found); an agent's \`vigil wait …\` there would fail → put ${global} on PATH in ~/.zprofile, where vigil is installed\n`,
  );
  expect((await vigilWithPath([global], "setup", "claude-code", "--remove")).exitCode).toBe(0);
});
