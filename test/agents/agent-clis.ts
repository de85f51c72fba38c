/**
 * The real agent CLIs, as test tools (never product dependencies): installed once into a cache
 * outside the repository (`$VIGIL_AGENT_CLI_CACHE`, default ~/.cache/vigil-agent-clis) at pinned
 * versions, and reused. When the install fails the tests fail, saying why — nothing is skipped.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export const AGENT_CLIS = {
  claude: { package: "@anthropic-ai/claude-code", version: "2.1.328", bin: "claude" },
  codex: { package: "@openai/codex", version: "0.169.0", bin: "codex" },
  gemini: { package: "@google/gemini-cli", version: "0.61.0", bin: "gemini" },
  opencode: { package: "opencode-ai", version: "1.18.33", bin: "opencode" },
  // A native binary (its npm package only launches it): runs whatever Node the machine has.
  copilot: { package: "@github/copilot", version: "1.0.102", bin: "copilot" },
} as const;

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
  const missing = Object.values(AGENT_CLIS).filter((cli) => installedVersion(cli.package) !== cli.version);
  if (missing.length === 0) return;
  mkdirSync(CLI_CACHE, { recursive: true });
  // All of them in one install: npm removes from the prefix what a --no-save install does not name.
  const specs = Object.values(AGENT_CLIS).map((cli) => `${cli.package}@${cli.version}`);
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
  for (const cli of Object.values(AGENT_CLIS)) {
    if (!existsSync(join(cliBinDir(), cli.bin)))
      throw new Error(`${cli.package} installed, but ${cli.bin} is missing in ${cliBinDir()}`);
  }
}
