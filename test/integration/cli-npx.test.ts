/**
 * `npx vigil …` in a checkout never builds; `npm install` in a fresh clone does. npm's own
 * behaviour, shown on a copy of the checkout's scaffolding (package.json's prepare, bin/prepare.js,
 * bin/vigil.js) whose `build` only records that it ran and whose dist/ is a stub CLI: npx installs
 * the checkout itself into its npx cache as a link and runs a linked package's `prepare`.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ROOT } from "../helpers/daemon.js";

const { scripts } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  scripts: Record<string, string>;
};

let base: string;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), "vigil-npx-"));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A checkout whose build adds a line to `built`, and nothing else. */
function checkout(name: string, prepare: string): string {
  const dir = join(base, name);
  mkdirSync(join(dir, "dist", "native-host", "src", "cli"), { recursive: true });
  cpSync(join(ROOT, "bin"), join(dir, "bin"), { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({
      name: "vigil",
      version: "0.0.0-test",
      private: true,
      type: "module",
      bin: { vigil: "bin/vigil.js" },
      scripts: {
        prepare,
        build: `node -e "require('fs').appendFileSync('built', 'built\\n')"`,
      },
    }),
  );
  writeFileSync(
    join(dir, "dist", "native-host", "src", "cli", "main.js"),
    'export async function main(argv) { process.stdout.write(`cli ran: ${argv.slice(2).join(" ")}\\n`); }\n',
  );
  return dir;
}

/** npm with its own cache (so npx's cache starts empty), offline, quiet. */
const npm = (command: "npm" | "npx", args: string[], cwd: string) =>
  execa(command, args, {
    cwd,
    reject: false,
    timeout: 60_000,
    env: {
      npm_config_cache: join(base, "npm-cache"),
      npm_config_offline: "true",
      npm_config_audit: "false",
      npm_config_fund: "false",
      npm_config_update_notifier: "false",
      npm_config_yes: "true",
    },
  });

const builds = (dir: string) => (existsSync(join(dir, "built")) ? readFileSync(join(dir, "built"), "utf8") : "");

describe("prepare", () => {
  test("npm install in a fresh clone builds; npx vigil there runs the CLI and builds nothing", async () => {
    const dir = checkout("fixed", scripts.prepare as string);
    const install = await npm("npm", ["install"], dir);
    expect(install.exitCode, install.stderr).toBe(0);
    expect(builds(dir)).toBe("built\n");

    for (const cwd of [dir, join(dir, "bin")]) {
      const run = await npm("npx", ["vigil", "status", "--json"], cwd);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stdout).toBe("cli ran: status --json");
    }
    expect(builds(dir)).toBe("built\n");
  });

  test("the cause: with prepare = npm run build, the first npx vigil in a checkout builds", async () => {
    const dir = checkout("before", "npm run build");
    const run = await npm("npx", ["vigil", "ls"], dir);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toBe("cli ran: ls");
    expect(builds(dir)).toBe("built\n");
  });
});
