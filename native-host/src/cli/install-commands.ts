/**
 * `vigil install`, `vigil uninstall`, `vigil doctor`: connect the browser extension to this daemon.
 * Design: docs/design.md §7.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { CliError } from "../api/client.js";
import { ValidationError } from "../base/errors.js";
import { packageRoot } from "../base/paths.js";
import {
  detectedTargets,
  type InstallTarget,
  install,
  launcherPath,
  parseBrowsers,
  targets,
  uninstall,
} from "../install/install.js";
import { homeOf, print } from "./context.js";
import { runDoctor } from "./doctor-command.js";
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
    .description(
      "check what can break: node, the daemon, the service, the native host and manifests, the extension, PostgreSQL in team mode, each set-up agent (hooks, CLI, tested version), vigil in every login shell; one line each, a problem with the command that fixes it (exit 1)",
    )
    .option("--extension-id <id>", "the extension id the manifests must allow (default: Vigil's own)")
    .option("--json", "print the findings as JSON")
    .action((options: BrowserOptions & { json?: boolean }, command: Command) =>
      runDoctor(homeOf(command), chosenTargets(options), options),
    );
}
