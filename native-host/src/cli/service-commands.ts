/**
 * `vigil service install|uninstall|status`: run the daemon at login under this user's service
 * manager (install/service.ts). `--env NAME` copies a variable's value from this shell into the
 * service; the value is written to a 0600 file and never printed. Design: docs/design.md §7.
 */
import type { Command } from "commander";
import { ValidationError } from "../base/errors.js";
import { answers, readDaemonInfo } from "../base/home.js";
import { vigilCommandLine } from "../base/how-to-run.js";
import { homePaths } from "../base/paths.js";
import {
  currentContext,
  fallbackLine,
  installService,
  managerFor,
  NoServiceManagerError,
  reachableManager,
  serviceState,
  uninstallService,
} from "../install/service.js";
import { currentSpec, withHiddenValues } from "../install/service-spec.js";
import { homeOf, print, printError, printJson } from "./context.js";
import { EXIT, usageError } from "./options.js";

const collect = (value: string, previous: string[]) => [...previous, value];

/** The failure of a service command: no manager prints its fallback line too; exit 1 either way. */
async function orExplain(run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ValidationError) throw usageError(error.message);
    if (!(error instanceof NoServiceManagerError)) throw error;
    printError(`vigil: ${error.message}`);
    printError(`  ${error.fallback}`);
    process.exitCode = EXIT.failed;
  }
}

async function dryRun(home: string, envNames: string[]): Promise<void> {
  const context = currentContext();
  const manager = managerFor(context);
  if (!manager) throw new Error(`Vigil's service uses systemd (Linux) or launchd (macOS); this is ${context.platform}`);
  for (const file of manager.files(withHiddenValues(currentSpec(home, envNames)))) {
    print(`# ${file.path} (mode ${file.mode.toString(8).padStart(4, "0")})`);
    print(file.text);
  }
  print("# then it runs:");
  for (const step of [...manager.install, ...manager.start]) print(step.argv.join(" "));
  const reached = await reachableManager(context);
  if (!reached.manager) print(`# but here it would stop: ${reached.why}; instead run: ${fallbackLine(home)}`);
}

export function registerServiceCommands(program: Command): void {
  const service = program
    .command("service")
    .description("run the daemon at login: a systemd user unit (Linux) or a launchd agent (macOS)");

  service
    .command("install")
    .description("write and enable the service, stop a daemon running outside it, start it")
    .option(
      "--env <name>",
      "copy this variable's current value into the service's environment (repeatable; the value is never printed)",
      collect,
      [],
    )
    .option("--dry-run", "print the files and commands, with variable names only; change nothing")
    .action(async (options: { env: string[]; dryRun?: boolean }, command: Command) => {
      const home = homeOf(command);
      await orExplain(async () => {
        if (options.dryRun) return await dryRun(home, options.env);
        await installService({ spec: currentSpec(home, options.env), home, say: print });
      });
    });

  service
    .command("uninstall")
    .description("stop and disable the service and remove its files")
    .action(async (_options: unknown, command: Command) => {
      await orExplain(() => uninstallService({ home: homeOf(command), say: print }));
    });

  service
    .command("status")
    .description("what the service manager says of the service, and whether the daemon answers")
    .option("--json", "print it as JSON")
    .action(async (options: { json?: boolean }, command: Command) => {
      const home = homeOf(command);
      const paths = homePaths(home);
      const [state, answering] = await Promise.all([serviceState(), answers(paths)]);
      const daemon = {
        answers: answering,
        pid: answering ? (readDaemonInfo(paths)?.pid ?? null) : null,
        socket: paths.apiSocket,
      };
      if (options.json) printJson({ ...state, daemon });
      else {
        print(`service: ${state.detail}`);
        if (state.files.length > 0) print(`files: ${state.files.join(", ")}`);
        print(
          daemon.answers
            ? `daemon: answers on ${daemon.socket} (pid ${daemon.pid ?? "?"})`
            : `daemon: none answers on ${daemon.socket}`,
        );
        if (state.manager === null) print(`instead run: ${fallbackLine(home)}`);
        else if (!state.installed) print(`install it: ${vigilCommandLine("service install", home)}`);
      }
      if (!(state.active && daemon.answers)) process.exitCode = EXIT.failed;
    });
}
