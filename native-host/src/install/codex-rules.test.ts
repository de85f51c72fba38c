import { describe, expect, test } from "vitest";
import { planCodex } from "./codex.js";
import { codexRules, UNSANDBOXED_VERBS, withoutRules } from "./codex-rules.js";

const paths = { home: "/h/.codex", config: "/h/.codex/config.toml", rules: "/h/.codex/rules/vigil.rules" };
const LAUNCHER = "/h/.local/bin/vigil";
/** The rules file as it was written before issue #37: every `vigil …` let out of the sandbox. */
const OLD_RULES = [
  "# Written by `vigil setup codex` (`vigil setup codex --remove` takes it out).",
  "# Codex's sandbox forbids connecting to the Vigil daemon's owner-only socket, so `vigil wait` from",
  "# the shell tool could not arm anything: these rules let commands that start with `vigil` run",
  "# outside the sandbox. (The checks they arm run in the Vigil daemon, outside any sandbox, anyway.)",
  'prefix_rule(pattern = ["vigil"], decision = "allow")',
  `prefix_rule(pattern = [${JSON.stringify(LAUNCHER)}], decision = "allow")`,
  "",
].join("\n");

describe("the sandbox rules file", () => {
  test("lets out only the verbs that run nothing and wait/watch, each right after `vigil` or the launcher", () => {
    const rules = codexRules(LAUNCHER);
    const verbs = JSON.stringify(UNSANDBOXED_VERBS).replaceAll(",", ", ");
    expect(rules).toContain(`prefix_rule(pattern = ["vigil", ${verbs}], decision = "allow")`);
    expect(rules).toContain(`prefix_rule(pattern = ["${LAUNCHER}", ${verbs}], decision = "allow")`);
    // No rule is one word long: none lets out `vigil serve`, `vigil --home X …` or anything else.
    expect(rules).not.toMatch(/pattern = \["[^"]*"\]/);
    for (const verb of [
      "serve",
      "setup",
      "sessions",
      "vault",
      "devices",
      "install",
      "mcp",
      "hook",
      "signal",
      "wait-pr",
    ])
      expect(UNSANDBOXED_VERBS).not.toContain(verb);
  });

  test("without Vigil's lines it is nothing, or the user's own rules", () => {
    const ours = codexRules(LAUNCHER);
    expect(withoutRules(ours)).toBeNull();
    const mine = 'prefix_rule(pattern = ["make"], decision = "allow")\n';
    expect(withoutRules(`${mine}${ours}`)).toBe(mine);
    // A rule of the user's own for vigil (another verb list) is theirs.
    const theirs = 'prefix_rule(pattern = ["vigil", ["ls"]], decision = "allow")\n';
    expect(withoutRules(`${theirs}${ours}`)).toBe(theirs);
  });

  test("setup over an old rules file replaces the broad `vigil` rule; the user's rules stay", () => {
    const mine = 'prefix_rule(pattern = ["make"], decision = "allow")\n';
    const rules = planCodex(paths, { config: null, rules: `${mine}${OLD_RULES}` }, LAUNCHER, null).files[1];
    expect(rules?.after).toBe(`${mine}${codexRules(LAUNCHER)}`);
    expect(rules?.after).not.toContain('prefix_rule(pattern = ["vigil"], decision = "allow")');
    expect(withoutRules(OLD_RULES)).toBeNull();
  });
});
