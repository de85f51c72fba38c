/**
 * `vigil install`, `vigil uninstall`, `vigil doctor`: connect the browser extension to this daemon.
 * Design: docs/design.md §7.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { EXTENSION_ID, EXTENSION_KEY, GECKO_ID } from "../../../shared/extension-identity.js";
import { ApiClient, CliError } from "../api/client.js";
import { ValidationError } from "../base/errors.js";
import { answers, readDaemonInfo } from "../base/home.js";
import { vigilCommand, vigilCommandLine } from "../base/how-to-run.js";
import { homePaths, packageRoot } from "../base/paths.js";
import {
  agentPathFindings,
  claudeFindings,
  codexFindings,
  copilotFindings,
  geminiFindings,
  opencodeFindings,
} from "../install/agent-doctor.js";
import {
  checkLauncher,
  checkManifest,
  detectedTargets,
  type Finding,
  type InstallTarget,
  install,
  launcherPath,
  parseBrowsers,
  targets,
  uninstall,
} from "../install/install.js";
import { homeOf, print, printJson } from "./context.js";
import { usageError } from "./options.js";

interface BrowserOptions {
  browser?: string;
  userDataDir?: string;
  extensionId?: string;
}

const usage = <T>(run: () => T): T => {
  try {
    return run();
  } catch (error) {
    if (error instanceof ValidationError) throw usageError(error.message);
    throw error;
  }
};

const CHROME_EXTENSION = join(packageRoot, ".output", "chrome-mv3");
const FIREFOX_EXTENSION = join(packageRoot, ".output", "firefox-mv3");

/** --browser / --user-data-dir as targets; neither: the browsers this machine has. */
function chosenTargets(options: BrowserOptions): InstallTarget[] {
  return usage(() => {
    if (options.browser === undefined && options.userDataDir === undefined) return detectedTargets();
    return targets(parseBrowsers(options.browser ?? "chromium"), { userDataDir: options.userDataDir });
  });
}

export function registerInstallCommands(program: Command): void {
  // The three share the browser flags; each says what it does with them.
  const browserOption = (command: Command, does: string) =>
    command
      .option(
        "--browser <name>",
        "chrome, chromium, edge, brave, firefox, a comma list, or all (default: the browsers this machine has)",
      )
      .option("--user-data-dir <dir>", `a browser profile folder: ${does} (tests, portable profiles)`);

  browserOption(program.command("install"), "writes DIR/NativeMessagingHosts/")
    .option("--extension-id <id>", "allow another extension id (an unpacked build without the key)")
    .description("let the Vigil extension reach this daemon: write the browsers' native-host manifests")
    .action((options: BrowserOptions, command: Command) => {
      const home = homeOf(command);
      const list = chosenTargets(options);
      // Nothing wrong with the command line: the machine lacks what it needs, so a failure (exit 1).
      if (list.length === 0)
        throw new CliError(
          "Found no Chrome, Chromium, Edge, Brave or Firefox profile folder: name the browser, e.g. vigil install --browser chromium",
        );
      const written = install({ vigilHome: home, targets: list, extensionId: options.extensionId });
      for (const target of written) print(`${target.browser}: wrote ${target.file}`);
      print(`launcher: ${launcherPath(home)}`);
      print(
        existsSync(join(CHROME_EXTENSION, "manifest.json"))
          ? `Load the extension: chrome://extensions → Developer mode → Load unpacked → ${CHROME_EXTENSION}`
          : "Build the extension with `npm run build:ext`, then load .output/chrome-mv3 (chrome://extensions → Load unpacked)",
      );
    });

  browserOption(program.command("uninstall"), "removes the manifest from DIR/NativeMessagingHosts/")
    .description("remove the native-host manifests vigil install wrote")
    .action((options: BrowserOptions) => {
      for (const result of uninstall(chosenTargets(options)))
        print(`${result.browser}: ${result.removed ? `removed ${result.file}` : `${result.note} (${result.file})`}`);
    });

  browserOption(program.command("doctor"), "checks the manifest in DIR/NativeMessagingHosts/")
    .description("check node, the daemon, the native-host manifests, the extension and the agents; say what to fix")
    .option("--extension-id <id>", "the extension id the manifests must allow (default: Vigil's own)")
    .option("--json", "print the findings as JSON")
    .action(async (options: BrowserOptions & { json?: boolean }, command: Command) => {
      const findings = await diagnose(homeOf(command), options);
      if (options.json) printJson(findings);
      else
        for (const finding of findings)
          print(`${finding.ok ? "ok  " : "FIX "} ${finding.what}${finding.fix ? `\n     → ${finding.fix}` : ""}`);
      if (findings.some((finding) => !finding.ok)) process.exitCode = 1;
    });
}

async function diagnose(home: string, options: BrowserOptions): Promise<Finding[]> {
  const findings: Finding[] = [];
  const [major, minor] = process.versions.node.split(".").map(Number) as [number, number];
  findings.push(
    major > 20 || (major === 20 && minor >= 18)
      ? { ok: true, what: `node ${process.versions.node} (${process.execPath})` }
      : { ok: false, what: `node ${process.versions.node} is too old`, fix: "install Node.js 20.18 or newer" },
  );

  const info = readDaemonInfo(homePaths(home));
  const running = info !== null && (await answers(homePaths(home)));
  findings.push(
    running
      ? { ok: true, what: `daemon running at ${info?.url} (home ${home})` }
      : {
          ok: false,
          what: `no daemon answers for ${home}`,
          fix: `start it: ${vigilCommandLine("serve", home)} (or npm start in the checkout)`,
        },
  );

  const launcher = launcherPath(home);
  findings.push(checkLauncher(launcher));

  const relevant = chosenTargets(options);
  if (relevant.length === 0)
    findings.push({
      ok: false,
      what: "no supported browser profile found",
      fix: `${vigilCommand()} install --browser chromium (or chrome, edge, brave, firefox)`,
    });
  for (const target of relevant) findings.push(checkManifest(target, options.extensionId ?? EXTENSION_ID));

  const firefox = relevant.some((target) => target.browser === "firefox");
  if (relevant.some((target) => target.browser !== "firefox") || !firefox) findings.push(checkBuiltExtension());
  if (firefox) findings.push(checkFirefoxExtension(), FIREFOX_SITES);
  findings.push(
    ...claudeFindings(),
    ...codexFindings(),
    ...geminiFindings(),
    ...opencodeFindings(),
    ...copilotFindings(),
    ...(await agentPathFindings()),
  );
  if (running) {
    try {
      const status = await new ApiClient(home).call("status");
      findings.push(
        status.browserConnected
          ? { ok: true, what: "a browser with the Vigil extension is connected" }
          : {
              ok: false,
              what: "no browser is connected to the daemon",
              fix: `open the browser with the Vigil extension loaded (id ${EXTENSION_ID}; in Firefox ${GECKO_ID}); its side panel or sidebar says what is missing`,
            },
      );
    } catch (error) {
      findings.push({ ok: false, what: `the daemon did not answer /api/status (${(error as Error).message})` });
    }
  }
  return findings;
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
