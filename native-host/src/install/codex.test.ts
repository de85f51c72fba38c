import { parse } from "smol-toml";
import { describe, expect, test } from "vitest";
import { planCodex, withoutBlock } from "./codex.js";

const paths = { home: "/h/.codex", config: "/h/.codex/config.toml", rules: "/h/.codex/rules/vigil.rules" };
const setUp = (config: string | null) =>
  planCodex(paths, { config, rules: null }, "/h/.local/bin/vigil", null).files[0]?.after as string;

describe("Vigil's part of config.toml is exactly its own tables", () => {
  const USER = 'model = "o4"\nnotes = """\n[not.a.table]\n"""\n';

  test("a `[` line inside a multi-line string is not a table; cut out, the block leaves the user's bytes", () => {
    const written = setUp(USER);
    expect(written.startsWith(USER)).toBe(true);
    expect(withoutBlock(written)).toBe(USER);
  });

  test("tables Codex appended between the markers stay, in order; Vigil's go", () => {
    const written = setUp(USER);
    const codex = '[tui]\nshow_tooltips = false\n\n[projects."/p"]\ntrust_level = "trusted"\n';
    const withCodex = written.replace("# <<< vigil <<<", `${codex}# <<< vigil <<<`);
    const left = withoutBlock(withCodex);
    expect(parse(left)).toEqual(parse(`${USER}\n${codex}`));
    expect(left).not.toMatch(/vigil|hooks|mcp_servers/);
    // Set up again: nothing to change.
    expect(setUp(withCodex)).toBe(withCodex);
  });

  test("a hook trust entry Codex recorded for someone else's hook between the markers stays", () => {
    const written = setUp("");
    const theirs = '[hooks.state."/h/.codex/config.toml:stop:5:0"]\ntrusted_hash = "sha256:00"\n';
    const left = withoutBlock(written.replace("# <<< vigil <<<", `${theirs}# <<< vigil <<<`));
    expect(parse(left)).toEqual(parse(theirs));
  });
});
