/**
 * Issue #37 (High 2): Vigil's rules file, judged by the real Codex 0.169 (`codex execpolicy check`),
 * lets out of Codex's sandbox only the `vigil` verbs that run nothing; and the CLI takes `--home`
 * only before its command, so `vigil ls --home DIR` (which the rules' prefix would match) cannot
 * point an unsandboxed vigil at a home the agent wrote.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, expect, test } from "vitest";
import { codexRules } from "../../native-host/src/install/codex-rules.js";
import { BIN } from "../helpers/daemon.js";
import { cliBinDir } from "./agent-clis.js";

const dir = mkdtempSync(join(tmpdir(), "vigil-codex-rules-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const LAUNCHER = "/home/me/.local/bin/vigil";

/** Codex's own verdict on a command under Vigil's rules: "allow", or undefined (stays sandboxed). */
async function verdict(...command: string[]): Promise<string | undefined> {
  const rules = join(dir, "vigil.rules");
  writeFileSync(rules, codexRules(LAUNCHER));
  const result = await execa(join(cliBinDir(), "codex"), ["execpolicy", "check", "--rules", rules, ...command], {
    reject: false,
    env: { CODEX_HOME: dir },
  });
  expect(result.exitCode, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { decision?: string }).decision;
}

test("Codex lets out only ls/show/inbox/status/events/checks and wait/watch: never serve, vault, setup or --home", async () => {
  for (const program of ["vigil", LAUNCHER]) {
    for (const verb of ["ls", "show", "inbox", "status", "events", "checks", "wait", "watch"])
      expect(await verdict(program, verb, "x"), `${program} ${verb}`).toBe("allow");
    for (const attack of [
      ["serve"],
      ["vault", "set", "k"],
      ["setup", "codex"],
      ["sessions", "rm", "s"],
      ["devices", "add"],
      ["install"],
      ["mcp"],
      ["wait-pr", "1"],
      ["signal", "--url", "http://example.com"],
      ["--home", "/tmp/evil", "ls"],
      ["--home=/tmp/evil", "ls"],
    ])
      expect(await verdict(program, ...attack), `${program} ${attack.join(" ")}`).toBeUndefined();
  }
});

test("the CLI refuses --home after the command (a prefix rule would have matched it)", async () => {
  const home = join(dir, "agent-written-home");
  for (const args of [
    ["ls", "--home", home],
    ["show", "m-1", "--home", home],
    ["status", `--home=${home}`],
  ]) {
    const result = await execa(process.execPath, [BIN, ...args], { reject: false, env: { VIGIL_HOME: dir } });
    expect(result.exitCode, args.join(" ")).toBe(2);
    expect(result.stderr).toContain("unknown option '--home");
  }
});

test("inside a Codex session, wait and watch arm only for that session (its sandbox), never another", async () => {
  for (const args of [["wait", "--until", "5"], ["watch"]]) {
    const result = await execa(process.execPath, [BIN, ...args, "--session", "default", "--", "true"], {
      reject: false,
      env: { VIGIL_HOME: dir, CODEX_THREAD_ID: "019-thread" },
    });
    expect(result.exitCode, result.stderr).toBe(2);
    expect(result.stderr).toContain(
      "Expected --session (or $VIGIL_SESSION) to name this Codex session 019-thread or nothing: a check armed from Codex runs in its session's sandbox; got default",
    );
  }
});
