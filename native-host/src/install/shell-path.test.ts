import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { planShellPath, withoutPathBlock } from "./shell-path.js";

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "vigil-shell-path-"));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const bin = () => join(home, ".local", "bin");
const plannedFor = (path: string) => planShellPath(bin(), { HOME: home }).find((file) => file.path === path);

test("bash: a block at the end of ~/.profile that adds $HOME/.local/bin once; taking it out gives the user's text back", () => {
  writeFileSync(join(home, ".profile"), "umask 022\n");
  const file = plannedFor(join(home, ".profile"));
  expect(file?.after).toContain("umask 022\n# >>> vigil");
  expect(file?.after).toContain(
    'case ":$PATH:" in *":$HOME/.local/bin:"*) ;; *) PATH="$HOME/.local/bin:$PATH"; export PATH ;; esac',
  );
  expect(withoutPathBlock(file?.after as string)).toBe("umask 022\n");
  // Planned again over its own result: no change.
  writeFileSync(join(home, ".profile"), file?.after as string);
  expect(plannedFor(join(home, ".profile"))?.after).toBe(file?.after);
});

test("bash reads ~/.bash_profile instead of ~/.profile when there is one: the block goes there", () => {
  writeFileSync(join(home, ".bash_profile"), ". ~/.bashrc\n");
  const paths = planShellPath(bin(), { HOME: home }).map((file) => file.path);
  expect(paths).toContain(join(home, ".bash_profile"));
  expect(paths).not.toContain(join(home, ".profile"));
});

test("zsh's ~/.zprofile and fish's conf.d file are planned when the shell is used here (its profile exists)", () => {
  writeFileSync(join(home, ".zshrc"), "");
  mkdirSync(join(home, ".config", "fish"), { recursive: true });
  const zsh = plannedFor(join(home, ".zprofile"));
  expect(zsh?.before).toBeNull();
  expect(zsh?.after).toMatch(/^# >>> vigil .*\n.*\n# <<< vigil <<<\n$/);
  const fish = plannedFor(join(home, ".config", "fish", "conf.d", "vigil.fish"));
  expect(fish?.after).toContain("contains -- $HOME/.local/bin $PATH; or set -gx PATH $HOME/.local/bin $PATH");
  expect(fish?.strip?.(fish.after as string)).toBeNull();
  expect(fish?.strip?.("set -gx EDITOR vim\n")).toBe("set -gx EDITOR vim\n");
});

test("a folder outside HOME is written quoted, not as $HOME/…", () => {
  const file = planShellPath("/opt/my tools/bin", { HOME: home })[0];
  expect(file?.after).toContain(`PATH="'/opt/my tools/bin':$PATH"`);
});
