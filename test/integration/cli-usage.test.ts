/**
 * The CLI as people know tools to behave (issue #17): --version, `help COMMAND`, one-line usage
 * errors with exit 2 found before the daemon is asked anything, exit 1 for refusals, predicates and
 * folders that cannot mean anything refused, `show` of a waitpoint, `wait --follow` into a pipe.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BIN, ROOT, TestDaemon, waitFor } from "../helpers/daemon.js";

let daemon: TestDaemon;
let work: string;
/** A home no daemon runs for: a command that asked the daemon anything would exit 1 there. */
let empty: string;

beforeAll(async () => {
  daemon = await TestDaemon.start();
  work = mkdtempSync(join(tmpdir(), "vigil-cli-usage-"));
  empty = mkdtempSync(join(tmpdir(), "vigil-no-daemon-"));
});
afterAll(async () => {
  await daemon.dispose();
  rmSync(work, { recursive: true, force: true });
  rmSync(empty, { recursive: true, force: true });
});

const run = (args: string[], options: { cwd?: string; home?: string } = {}) =>
  execa(process.execPath, [BIN, "--home", options.home ?? empty, ...args], {
    reject: false,
    cwd: options.cwd,
    timeout: 30_000,
  });

describe("version and help", () => {
  test("--version and -v print package.json's version", async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    for (const flag of ["--version", "-v"]) {
      const result = await run([flag]);
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toBe(version);
    }
  });

  test("help COMMAND prints that command's help, as COMMAND --help does", async () => {
    const help = await run(["help", "wait"]);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toMatch(/^Usage: vigil wait --until N \[options\] -- COMMAND\.\.\.\n\narm a command wait/);
    expect(help.stdout).toBe((await run(["wait", "--help"])).stdout);
    const nested = await run(["help", "sessions", "turn"]);
    expect(nested.exitCode).toBe(0);
    expect(nested.stdout).toMatch(/^Usage: vigil sessions turn \[options\] <id> <state>/);
    expect(nested.stdout).toContain("busy or idle");
    const top = await run(["help"]);
    expect(top.exitCode).toBe(0);
    expect(top.stdout).toMatch(/^Usage: vigil /);
  });

  test("top-level help documents the exit codes", async () => {
    const help = await run(["--help"]);
    expect(help.stdout).toContain("Exit codes:");
    expect(help.stdout).toMatch(/^ {2}0 {2}done/m);
    expect(help.stdout).toMatch(/^ {2}1 {2}refused or failed/m);
    expect(help.stdout).toMatch(/^ {2}2 {2}usage/m);
  });

  test("uninstall and doctor no longer describe install's writing", async () => {
    // Help wraps at the terminal's width: compare with the line breaks taken out.
    const help = async (command: string) => (await run(["help", command])).stdout.replace(/\s+/g, " ");
    expect(await help("install")).toContain("a browser profile folder: writes DIR/NativeMessagingHosts/");
    expect(await help("uninstall")).toContain("a browser profile folder: removes the manifest from DIR");
    expect(await help("doctor")).toContain("a browser profile folder: checks the manifest in DIR");
    expect(await help("uninstall")).not.toContain("--extension-id");
  });
});

describe("usage errors: one line saying what is wrong, where the help is, exit 2", () => {
  // Each runs against a home with no daemon: exit 2 (not 1, "not running") shows it was refused
  // before anything was asked of the daemon.
  const cases: Array<[string[], string, string]> = [
    [["nosuch"], "unknown command 'nosuch'", "vigil"],
    [["help", "nosuch"], "unknown command 'nosuch'", "vigil"],
    [["wait", "--bogus", "--until", "5", "--", "true"], "unknown option '--bogus'", "vigil wait"],
    [["wait", "--", "true"], "required option '--until <seconds>' not specified", "vigil wait"],
    [["wait", "--until", "5"], "missing required argument 'command'", "vigil wait"],
    [["show"], "missing required argument 'monitor'", "vigil show"],
    [["ls", "extra"], "too many arguments for 'ls'. Expected 0 arguments but got 1.", "vigil ls"],
    [["wait", "--until", "soon", "--", "true"], "Expected --until to be a number of seconds, got soon", "vigil wait"],
    [
      ["wait", "--until", "5", "--timeout", "5m", "--", "true"],
      "Expected --timeout to be a number of seconds, got 5m",
      "vigil wait",
    ],
    [
      ["watch", "--timeout", "-1", "--", "tail -f x"],
      "Expected --timeout to be a number of seconds, got -1",
      "vigil watch",
    ],
    [
      ["wait", "--until", "5", "--json-path", "a", "--gte", "lots", "--", "true"],
      "Expected --gte to be a number, got lots",
      "vigil wait",
    ],
    [["serve", "--port", "http"], "Expected --port to be a whole number 0–65535, got http", "vigil serve"],
    [["serve", "--port", "70000"], "Expected --port to be a whole number 0–65535, got 70000", "vigil serve"],
    [
      ["sessions", "turn", "s", "busy", "--lease", "1h"],
      "Expected --lease to be a number of seconds, got 1h",
      "vigil sessions turn",
    ],
    [["sessions", "turn", "s", "asleep"], "Expected busy or idle, got asleep", "vigil sessions turn"],
    [
      ["sessions", "set-adapter", "s", "--command", "--timeout", "x", "--", "cat"],
      "Expected --timeout to be a number of seconds, got x",
      "vigil sessions set-adapter",
    ],
    [
      ["sessions", "set-adapter", "s", "--inbox", "--header", "a=b"],
      "Expected --header only with --webhook URL",
      "vigil sessions set-adapter",
    ],
    [["inbox", "--wait", "forever"], "Expected --wait to be a number of seconds, got forever", "vigil inbox"],
    [
      ["signal", "--id", "wp_0123456789ab", "--exit-code", "1.5"],
      "Expected --exit-code to be a whole number, got 1.5",
      "vigil signal",
    ],
    [["setup", "vim"], "Expected an agent: claude-code, codex, gemini, opencode or copilot, got vim", "vigil setup"],
    [
      ["wait", "--until", "5", "--json-path", "status", "--", "true"],
      "Expected --gt, --gte, --lt or --lte with --json-path, got none",
      "vigil wait",
    ],
    [
      ["wait", "--until", "5", "--gte", "3", "--", "true"],
      "Expected --json-path PATH with --gte, got none",
      "vigil wait",
    ],
  ];

  test.each(cases)("%j", async (args, message, command) => {
    const result = await run(args);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(`vigil: ${message}\nTry '${command} --help'`);
    expect(result.stdout).toBe("");
  });

  test("--cwd that does not exist, or is a file, is refused naming the path; a relative one is made absolute", async () => {
    const missing = await run(["wait", "--until", "5", "--cwd", "no/such/dir", "--", "true"], { cwd: work });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toBe(
      `vigil: Expected --cwd to be an existing folder, got ${join(work, "no/such/dir")} (no such folder)\nTry 'vigil wait --help'`,
    );
    writeFileSync(join(work, "a-file"), "");
    const file = await run(["watch", "--cwd", "a-file", "--", "true"], { cwd: work });
    expect(file.exitCode).toBe(2);
    expect(file.stderr).toContain(`got ${join(work, "a-file")} (not a folder)`);

    const sid = await daemon.newSession("cwd");
    const armed = await daemon.cli(["wait", "--session", sid, "--until", "5", "--cwd", "..", "--json", "--", "true"], {
      cwd: work,
    });
    expect(armed.exitCode, String(armed.stderr)).toBe(0);
    expect(JSON.parse(String(armed.stdout)).source.cwd).toBe(join(work, ".."));
  });

  test("a refused usage changes nothing on the daemon", async () => {
    const sid = await daemon.newSession("nothing");
    const refused = await daemon.cli(["wait", "--session", sid, "--until", "5", "--json-path", "a", "--", "true"]);
    expect(refused.exitCode).toBe(2);
    expect(String((await daemon.cli(["ls", "--session", sid])).stdout)).toBe("no monitors");
  });

  test("a hook never fails its agent, even on a usage error", async () => {
    const result = await run(["hook"]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe("vigil: missing required argument 'agent'\nTry 'vigil hook --help'");
  });
});

describe("exit 1: refused or failed, one line, no usage hint", () => {
  test("an unknown monitor, a value the daemon refuses, no daemon", async () => {
    const sid = await daemon.newSession("refused");
    const unknown = await daemon.cli(["show", "mon-404", "--session", sid]);
    expect(unknown.exitCode).toBe(1);
    expect(String(unknown.stderr)).toBe(`vigil: Unknown monitor mon-404 in session ${sid}`);
    const range = await daemon.cli(["wait", "--until", "5", "--timeout", "900", "--", "true"], { cwd: work });
    expect(range.exitCode).toBe(1);
    expect(String(range.stderr)).toMatch(/^vigil: timeoutSeconds: [^\n]+$/);
    const down = await run(["ls"]);
    expect(down.exitCode).toBe(1);
    expect(down.stderr).toMatch(/^vigil: The Vigil daemon is not running for [^\n]+$/);
  });
});

describe("predicates", () => {
  test("--json-path with a comparator becomes one condition and is met by the JSON output", async () => {
    const sid = await daemon.newSession("json");
    const armed = await daemon.cli(
      [
        "wait",
        "--session",
        sid,
        "--until",
        "0.2",
        "--json-path",
        "build.progress",
        "--gte",
        "1",
        "--json",
        "--",
        `echo '{"build":{"progress":1}}'`,
      ],
      { cwd: work },
    );
    expect(armed.exitCode, String(armed.stderr)).toBe(0);
    const view = JSON.parse(String(armed.stdout));
    expect(view.source.condition).toEqual({ path: "json.build.progress", operator: "gte", value: 1 });
    const ended = await daemon.waitForState(sid, view.id, ["ready"]);
    expect(ended.ending.reason).toBe("met");
  });
});

describe("show", () => {
  test("a waitpoint's intent is labelled intent; a monitor's continuation, continuation", async () => {
    const sid = await daemon.newSession("show");
    const armed = await daemon.api("POST", `/api/sessions/${sid}/waitpoints`, {
      label: "train arm 2",
      intent: "compare arm 2 with the baseline",
    });
    expect(armed.status).toBe(201);
    const shown = await daemon.cli(["show", armed.body.id, "--session", sid]);
    expect(shown.exitCode, String(shown.stderr)).toBe(0);
    expect(String(shown.stdout)).toContain("\n  intent:    compare arm 2 with the baseline");
    expect(String(shown.stdout)).not.toContain("continuation");

    const wait = await daemon.cli(
      ["wait", "--session", sid, "--until", "5", "--continuation", "then deploy", "--", "false"],
      { cwd: work },
    );
    const monitor = await daemon.cli(["show", String(wait.stdout), "--session", sid]);
    expect(String(monitor.stdout)).toContain("\n  continuation: then deploy");
    expect(String(monitor.stdout)).not.toContain("intent");
  });
});

describe("wait --follow", () => {
  test("into a pipe: no progress, only the final status line on stderr; exit 0 when met", async () => {
    const sid = await daemon.newSession("follow");
    const flag = join(work, "follow.flag");
    const following = daemon.cli(["wait", "--session", sid, "--until", "0.2", "--follow", "--", `test -f ${flag}`], {
      cwd: work,
    });
    // Let it follow through checks that are not met, then meet it.
    await waitFor(async () => ((await daemon.monitor(sid, "mon-1"))?.polls ?? 0) >= 3, { what: "three checks" });
    writeFileSync(flag, "");
    const result = await following;
    expect(result.exitCode).toBe(0);
    expect(String(result.stdout)).toBe("mon-1");
    const stderr = String(result.stderr);
    expect(stderr).toMatch(/^mon-1 ready · met · command · [^\n]*$/);
    expect(stderr).not.toContain("\r");
    expect(stderr).not.toContain("\x1b");
    expect(stderr).not.toContain("waiting");
  });

  test("a wait that ends unmet exits 1", async () => {
    const sid = await daemon.newSession("unmet");
    const following = daemon.cli(["wait", "--session", sid, "--until", "5", "--follow", "--", "false"], { cwd: work });
    await waitFor(async () => (await daemon.monitor(sid, "mon-1"))?.state === "waiting", { what: "the wait" });
    expect((await daemon.cli(["cancel", "mon-1", "--session", sid])).exitCode).toBe(0);
    const result = await following;
    expect(result.exitCode).toBe(1);
    expect(String(result.stderr)).toMatch(/^mon-1 cancelled · command · [^\n]*$/);
  });
});
