import { expect, test } from "vitest";
import { AGENTS } from "./agents.js";
import { AGENT_CLIS, installCommand, isTestedVersion, parseVersion } from "./tested-versions.js";

test.each([
  ["2.1.328 (Claude Code)", "2.1.328"],
  ["codex-cli 0.169.0", "0.169.0"],
  ["0.61.0", "0.61.0"],
  ["1.18.33\n", "1.18.33"],
  ["GitHub Copilot CLI 1.0.102.\nRun 'copilot update' to check for updates.", "1.0.102"],
  ["v2.0.0-beta.1", "2.0.0-beta.1"],
  ["no version here", null],
])("parseVersion reads %j as %s (what each real CLI's --version prints)", (output, version) => {
  expect(parseVersion(output)).toBe(version);
});

test("every agent setup knows has its CLI, package and a tested version; the fix installs that version", () => {
  for (const agent of AGENTS) {
    const cli = AGENT_CLIS[agent];
    expect(cli.tested.length).toBeGreaterThan(0);
    expect(isTestedVersion(cli, cli.tested[0] as string)).toBe(true);
    expect(isTestedVersion(cli, "0.0.1")).toBe(false);
    expect(installCommand(cli)).toBe(`npm install -g ${cli.npmPackage}@${cli.tested[0]}`);
  }
});
