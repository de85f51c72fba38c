/**
 * The real agent CLIs, as test tools (never product dependencies): installed once into a cache
 * outside the repository (`$VIGIL_AGENT_CLI_CACHE`, default ~/.cache/vigil-agent-clis) at the
 * versions native-host/src/install/tested-versions.ts names (what `vigil doctor` calls tested), and reused. When the install fails the tests fail, saying why — nothing is skipped.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { AGENT_CLIS as TESTED_CLIS } from "../../native-host/src/install/tested-versions.js";

/** What is installed: each agent CLI at the newest version Vigil is tested with (its one table). */
export const AGENT_CLIS = Object.values(TESTED_CLIS).map((cli) => ({
  package: cli.npmPackage,
  version: cli.tested[0] as string,
  bin: cli.program,
}));

export const CLI_CACHE = process.env.VIGIL_AGENT_CLI_CACHE || join(homedir(), ".cache", "vigil-agent-clis");

export const cliBinDir = () => join(CLI_CACHE, "node_modules", ".bin");

function installedVersion(name: string): string | null {
  try {
    return JSON.parse(readFileSync(join(CLI_CACHE, "node_modules", name, "package.json"), "utf8")).version;
  } catch {
    return null;
  }
}

/** Vitest globalSetup: installs what is missing (about 20 s each from the registry, 5 s cached). */
export default function setup(): void {
  const missing = AGENT_CLIS.filter((cli) => installedVersion(cli.package) !== cli.version);
  if (missing.length === 0) return;
  mkdirSync(CLI_CACHE, { recursive: true });
  // All of them in one install: npm removes from the prefix what a --no-save install does not name.
  const specs = AGENT_CLIS.map((cli) => `${cli.package}@${cli.version}`);
  try {
    execFileSync("npm", ["install", "--no-save", "--no-audit", "--no-fund", "--prefix", CLI_CACHE, ...specs], {
      stdio: ["ignore", "ignore", "pipe"],
      timeout: 600_000,
    });
  } catch (error) {
    const stderr = String((error as { stderr?: Buffer }).stderr ?? "").slice(-2000);
    throw new Error(
      `Installing the agent CLIs for the agent tests failed (npm install ${specs.join(" ")} into ${CLI_CACHE}):\n${stderr}`,
    );
  }
  for (const cli of AGENT_CLIS) {
    if (!existsSync(join(cliBinDir(), cli.bin)))
      throw new Error(`${cli.package} installed, but ${cli.bin} is missing in ${cliBinDir()}`);
  }
}
