/**
 * The real MCP Inspector CLI, as a test tool (never a product dependency): installed once from the
 * npm registry into a cache outside the repository (`$VIGIL_MCP_INSPECTOR_CACHE`, default
 * ~/.cache/vigil-mcp-inspector) at a pinned version, and reused, as test/agents/agent-clis.ts does
 * for the agent CLIs. When the install fails the test fails, saying why; nothing is skipped.
 *
 * 2.12.0 is the current release (`npx @modelcontextprotocol/inspector --cli …` runs it). Its
 * package says node >= 22.19, but its CLI runs on Node 20 (this suite runs it there). v1
 * (@modelcontextprotocol/inspector-cli 1.0.3) is deprecated, and run from a folder whose parent
 * has no package.json it fails to start (it reads `../package.json` relative to the cwd).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export const INSPECTOR = { package: "@modelcontextprotocol/inspector", version: "2.12.0", bin: "mcp-inspector" };

export const INSPECTOR_CACHE =
  process.env.VIGIL_MCP_INSPECTOR_CACHE || join(homedir(), ".cache", "vigil-mcp-inspector");

export const inspectorBin = () => join(INSPECTOR_CACHE, "node_modules", ".bin", INSPECTOR.bin);

function installedVersion(): string | null {
  try {
    const manifest = join(INSPECTOR_CACHE, "node_modules", INSPECTOR.package, "package.json");
    return JSON.parse(readFileSync(manifest, "utf8")).version;
  } catch {
    return null;
  }
}

/** Installs the pinned Inspector when missing (about 20 s from the registry); returns its bin. */
export function ensureInspector(): string {
  if (installedVersion() !== INSPECTOR.version) {
    mkdirSync(INSPECTOR_CACHE, { recursive: true });
    const spec = `${INSPECTOR.package}@${INSPECTOR.version}`;
    try {
      // Its one install script sets up a source checkout and does nothing in node_modules.
      execFileSync(
        "npm",
        ["install", "--no-save", "--no-audit", "--no-fund", "--ignore-scripts", "--prefix", INSPECTOR_CACHE, spec],
        { stdio: ["ignore", "ignore", "pipe"], timeout: 600_000 },
      );
    } catch (error) {
      const stderr = String((error as { stderr?: Buffer }).stderr ?? "").slice(-2000);
      throw new Error(`Installing the MCP Inspector failed (npm install ${spec} into ${INSPECTOR_CACHE}):\n${stderr}`);
    }
  }
  if (!existsSync(inspectorBin())) throw new Error(`${INSPECTOR.package} installed, but ${inspectorBin()} is missing`);
  return inspectorBin();
}
