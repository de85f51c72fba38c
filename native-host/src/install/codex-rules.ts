/**
 * Vigil's exec-policy rules for Codex (`$CODEX_HOME/rules/vigil.rules`). Codex's sandbox forbids
 * connecting to the daemon's owner-only socket, so a `vigil` command from the shell tool must run
 * outside it: only verbs that run nothing are let out, and `wait`/`watch`, whose checks run inside
 * Codex's sandbox with the session's policy (engine/check-sandbox.ts) and only for the agent's own
 * session (cli/context.ts armingSessionOf). Each verb is named right after `vigil` (Codex's
 * `prefix_rule` matches the first words, so `vigil --home X ls` matches none and stays sandboxed,
 * and the CLI takes `--home` only before the verb). Never `serve`, `setup`, `sessions`, `vault`,
 * `devices`, `install`, `mcp`, `hook`, `wait-pr` (the daemon's GitHub token), `signal` (its `--url`
 * and `--data @file` would reach the network and any file): those stay in the sandbox, where they
 * cannot reach the daemon, and the agent's approval policy decides.
 * Design: docs/design.md §8.
 */

/** The verbs a sandboxed Codex agent may run outside its sandbox without a prompt: they run nothing, or arm sandboxed checks. */
export const UNSANDBOXED_VERBS = ["ls", "show", "inbox", "status", "events", "checks", "wait", "watch"] as const;

const RULES_HEADER = [
  "# Written by `vigil setup codex` (`vigil setup codex --remove` takes it out).",
  "# Codex's sandbox forbids connecting to the Vigil daemon's owner-only socket: these rules let only",
  "# the `vigil` verbs that run nothing (list, show, read) and wait/watch (their checks run in Codex's",
  "# sandbox) run outside it. Anything else (serve, setup, vault, --home …) stays in the sandbox.",
];

/** What earlier setups wrote: recognised so that setup replaces it and --remove takes it out. */
const OLD_RULES_HEADER = [
  "# Codex's sandbox forbids connecting to the Vigil daemon's owner-only socket, so `vigil wait` from",
  "# the shell tool could not arm anything: these rules let commands that start with `vigil` run",
  "# outside the sandbox. (The checks they arm run in the Vigil daemon, outside any sandbox, anyway.)",
];
const OLD_BROAD_RULE = /^prefix_rule\(pattern = \["(vigil|[^"]*\/vigil)"\], decision = "allow"\)$/;

/** TOML/Starlark string. */
const quoted = (value: string) => JSON.stringify(value);
const verbList = `[${UNSANDBOXED_VERBS.map(quoted).join(", ")}]`;

const rule = (program: string) => `prefix_rule(pattern = [${quoted(program)}, ${verbList}], decision = "allow")`;

const isRuleOfVigil = (line: string) =>
  line.startsWith("# ")
    ? RULES_HEADER.includes(line) || OLD_RULES_HEADER.includes(line)
    : OLD_BROAD_RULE.test(line) ||
      (line.startsWith("prefix_rule(pattern = [") &&
        line.endsWith(`, ${verbList}], decision = "allow")`) &&
        /^prefix_rule\(pattern = \["(vigil|[^"]*\/vigil)", /.test(line));

/** Vigil's rules file: `vigil`, and the launcher by its absolute path, with the verbs that run nothing. */
export function codexRules(launcher: string): string {
  const programs = [...new Set(["vigil", launcher])];
  return `${[...RULES_HEADER, ...programs.map(rule)].join("\n")}\n`;
}

/** The rules file without Vigil's lines (today's and earlier setups'); null when nothing else is left. */
export function withoutRules(text: string): string | null {
  const rest = text.split("\n").filter((line) => !isRuleOfVigil(line));
  return rest.every((line) => line.trim() === "") ? null : rest.join("\n");
}

export const SANDBOX_NOTE = `Codex's sandbox forbids connecting to the Vigil daemon's socket: the rules file lets only \`vigil ${UNSANDBOXED_VERBS.join("|")}\` run outside it (the checks wait and watch arm run in Codex's sandbox, with the session's policy); the rest stays sandboxed`;
