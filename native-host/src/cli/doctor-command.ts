/**
 * `vigil doctor [--json]`: checks what can break — node, the daemon on its socket, the service, the
 * native host and each browser's manifest, the built extension, each set-up agent (its hooks, its CLI
 * and version), `vigil` in every login shell, PostgreSQL in team mode — one line each, a problem with
 * the command that fixes it; exit 1 when there is any.
 * Design: docs/design.md §7.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { EXTENSION_ID, EXTENSION_KEY, GECKO_ID } from "../../../shared/extension-identity.js";
import { ApiClient } from "../api/client.js";
import { envConfig } from "../base/config.js";
import { answers } from "../base/home.js";
import { vigilCommand, vigilCommandLine } from "../base/how-to-run.js";
import { homePaths, packageRoot } from "../base/paths.js";
import { readTeamFile } from "../base/team-file.js";
import { agentCliFindings } from "../install/agent-clis.js";
import {
  claudeFindings,
  codexFindings,
  copilotFindings,
  geminiFindings,
  hookProgramFindings,
  opencodeFindings,
  setupCommand,
} from "../install/agent-doctor.js";
import { setUpAgents } from "../install/agents.js";
import { checkLauncher, checkManifest, type Finding, type InstallTarget, launcherPath } from "../install/install.js";
import { postgresFinding } from "../install/postgres-reach.js";
import { serviceState } from "../install/service.js";
import { type ServiceStateProbe, serviceFinding } from "../install/service-check.js";
import { shellPathFindings } from "../install/shell-path.js";
import { print, printJson } from "./context.js";

/** How doctor asks for the service's state: `vigil service status`'s own reading of the manager. */
export const SERVICE_STATE: ServiceStateProbe = async () => {
  const state = await serviceState();
  return {
    manager: state.manager,
    installed: state.installed,
    running: state.active === true,
    detail: state.manager === null ? state.detail.replace(/^no service manager: /, "") : state.detail,
  };
};

const CHROME_EXTENSION = join(packageRoot, ".output", "chrome-mv3");
const FIREFOX_EXTENSION = join(packageRoot, ".output", "firefox-mv3");

/** One line per finding: `ok   …`, or `FIX  … → the command that fixes it`. */
export const formatFinding = (finding: Finding): string =>
  `${finding.ok ? "ok  " : "FIX "} ${finding.what}${finding.fix ? ` → ${finding.fix}` : ""}`;

export async function runDoctor(
  home: string,
  relevant: InstallTarget[],
  options: { json?: boolean; extensionId?: string },
): Promise<void> {
  const findings = await diagnose(home, relevant, options.extensionId);
  if (options.json) printJson({ ok: findings.every((finding) => finding.ok), findings });
  else for (const finding of findings) print(formatFinding(finding));
  if (findings.some((finding) => !finding.ok)) process.exitCode = 1;
}

async function diagnose(home: string, relevant: InstallTarget[], extensionId = EXTENSION_ID): Promise<Finding[]> {
  const findings: Finding[] = [nodeFinding()];
  const paths = homePaths(home);
  const running = await answers(paths);
  const status = running ? await new ApiClient(home).call("status").catch((error: unknown) => error as Error) : null;
  findings.push(
    status === null
      ? {
          ok: false,
          what: `no daemon answers on ${paths.apiSocket}`,
          fix: `${vigilCommandLine("serve", home)} (or ${vigilCommand()} service install)`,
        }
      : status instanceof Error
        ? { ok: false, what: `the daemon did not answer /api/status on ${paths.apiSocket} (${status.message})` }
        : { ok: true, what: `daemon (pid ${status.pid}) answers /api/status on ${paths.apiSocket}` },
  );
  findings.push(serviceFinding(await SERVICE_STATE(home), vigilCommand()));
  const team = await teamFinding(home);
  if (team) findings.push(team);

  findings.push(checkLauncher(launcherPath(home)));
  if (relevant.length === 0)
    findings.push({
      ok: false,
      what: "no supported browser profile found",
      fix: `${vigilCommand()} install --browser chromium (or chrome, edge, brave, firefox)`,
    });
  for (const target of relevant) findings.push(checkManifest(target, extensionId));
  const firefox = relevant.some((target) => target.browser === "firefox");
  if (relevant.some((target) => target.browser !== "firefox") || !firefox) findings.push(checkBuiltExtension());
  if (firefox) findings.push(checkFirefoxExtension(), FIREFOX_SITES);

  findings.push(
    ...claudeFindings(),
    ...codexFindings(),
    ...geminiFindings(),
    ...opencodeFindings(),
    ...copilotFindings(),
    ...hookProgramFindings(),
  );
  const agents = setUpAgents();
  if (agents.length > 0) {
    const [clis, shells] = await Promise.all([
      agentCliFindings(),
      shellPathFindings(setupCommand(agents[0] as string)),
    ]);
    findings.push(...clis, ...shells);
  }
  if (status !== null && !(status instanceof Error))
    findings.push(
      status.browserConnected
        ? { ok: true, what: "a browser with the Vigil extension is connected" }
        : {
            ok: false,
            what: "no browser is connected to the daemon",
            fix: `open the browser with the Vigil extension loaded (id ${EXTENSION_ID}; in Firefox ${GECKO_ID}); its side panel or sidebar says what is missing`,
          },
    );
  return findings;
}

function nodeFinding(): Finding {
  const [major, minor] = process.versions.node.split(".").map(Number) as [number, number];
  return major > 20 || (major === 20 && minor >= 18)
    ? { ok: true, what: `node ${process.versions.node} (${process.execPath})` }
    : { ok: false, what: `node ${process.versions.node} is too old`, fix: "install Node.js 20.18 or newer" };
}

/** Team mode: VIGIL_DATABASE_URL, else the database the home's team file remembers; SQLite needs no line. */
async function teamFinding(home: string): Promise<Finding | null> {
  const fromEnv = envConfig().VIGIL_DATABASE_URL;
  if (fromEnv !== undefined) return postgresFinding(fromEnv, "VIGIL_DATABASE_URL");
  const team = readTeamFile(home);
  return team === null ? null : postgresFinding(team.databaseUrl, `${join(home, "team.json")}`);
}

/** Firefox cannot be asked which sites the user allowed: doctor says where that is decided. */
const FIREFOX_SITES: Finding = {
  ok: true,
  what: "firefox: localhost and 127.0.0.1 are readable out of the box; other sites need about:addons → Vigil → Permissions (until then their checks say no permission for HOST)",
};

function checkFirefoxExtension(): Finding {
  const manifestFile = join(FIREFOX_EXTENSION, "manifest.json");
  if (!existsSync(manifestFile))
    return {
      ok: false,
      what: `the Firefox extension is not built (${FIREFOX_EXTENSION})`,
      fix: "npm run build:ext:firefox",
    };
  const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as {
    browser_specific_settings?: { gecko?: { id?: string } };
  };
  const id = manifest.browser_specific_settings?.gecko?.id;
  if (id !== GECKO_ID)
    return {
      ok: false,
      what: `${manifestFile} names the add-on ${String(id)}, not ${GECKO_ID}, so the host manifest does not let it connect`,
      fix: "npm run build:ext:firefox",
    };
  return {
    ok: true,
    what: `Firefox extension built at ${FIREFOX_EXTENSION} (${GECKO_ID}); load it from about:debugging → This Firefox → Load Temporary Add-on… (its manifest.json), or install a signed .xpi`,
  };
}

function checkBuiltExtension(): Finding {
  const manifestFile = join(CHROME_EXTENSION, "manifest.json");
  if (!existsSync(manifestFile))
    return { ok: false, what: `the extension is not built (${CHROME_EXTENSION})`, fix: "npm run build:ext" };
  const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as { key?: string };
  if (manifest.key !== EXTENSION_KEY)
    return {
      ok: false,
      what: `${manifestFile} carries another key, so its id is not ${EXTENSION_ID}`,
      fix: "npm run build:ext",
    };
  return {
    ok: true,
    what: `extension built at ${CHROME_EXTENSION} (id ${EXTENSION_ID}); load it unpacked from chrome://extensions`,
  };
}
