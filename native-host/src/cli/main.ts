/**
 * The `vigil` command line (design.md §7, §11). Each subcommand is a thin HTTP client of the daemon,
 * except `serve`. Errors are one line on stderr; a usage error adds where to read the usage. Exit 0
 * done, 1 refused or failed, 2 usage (EXIT in options.ts).
 */
import { Command, CommanderError } from "commander";
import { CliError } from "../api/client.js";
import { packageVersion } from "../base/paths.js";
import { forTerminal } from "../base/terminal-text.js";
import { homeOf, printError } from "./context.js";
import { registerDeviceCommands } from "./device-commands.js";
import { registerHookCommands } from "./hook-commands.js";
import { registerHostCommands } from "./host-commands.js";
import { registerInstallCommands } from "./install-commands.js";
import { registerMonitorCommands } from "./monitor-commands.js";
import { registerNotifyCommands } from "./notify-commands.js";
import { checkHostName, EXIT, parseInteger, usageError } from "./options.js";
import { registerServiceCommands } from "./service-commands.js";
import { registerSessionCommands } from "./session-commands.js";
import { registerSetupCommands } from "./setup-commands.js";
import { registerSignalCommand } from "./signal-command.js";
import { registerVaultCommands } from "./vault-commands.js";
import { registerWaitPrCommand } from "./wait-pr-command.js";
import { registerWaitpointCommands } from "./waitpoint-commands.js";

const EXIT_CODES_HELP = `
Exit codes:
  0  done (wait --follow: the wait was met)
  1  refused or failed: the daemon refused the request (a value out of range, an unknown id), it is
     not running, or the wait ended without being met
  2  usage: an unknown command or option, a missing argument, a malformed value

Run 'vigil help COMMAND' (or 'vigil COMMAND --help') for a command's options, 'vigil help sessions
turn' for a subcommand's.`;

export { packageVersion };

/** `vigil sessions turn`: the words that name a command. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(" ");
}

/** Every command's own errors read as ours: `vigil: what is wrong`, then `Try 'vigil X --help'`. */
function configureErrors(command: Command): void {
  command
    .configureOutput({
      outputError: (text, write) => write(forTerminal(process.stderr, `vigil: ${text.replace(/^error: /, "")}`)),
    })
    .showHelpAfterError(`Try '${commandPath(command)} --help'`);
  for (const sub of command.commands) configureErrors(sub);
}

/** The command `help A B` names (`help sessions turn`); undefined when there is no such command. */
function findCommand(program: Command, words: string[]): Command | undefined {
  let at: Command | undefined = program;
  for (const word of words) at = at?.commands.find((c) => c.name() === word || c.aliases().includes(word));
  return at;
}

export function buildProgram(): Command {
  const program = new Command("vigil")
    .description("Durable wake-me-when monitors for AI agents")
    .version(packageVersion(), "-v, --version", "print the version")
    .option("--home <dir>", "Vigil's home folder (default: $VIGIL_HOME or ~/.vigil); before the command only")
    // `--home` is taken before the command only: Codex's rules let `vigil ls …` out of its sandbox by
    // its first words, so `vigil ls --home DIR` (a daemon on a home the agent wrote) must not parse.
    .enablePositionalOptions()
    .helpCommand("help [command...]", "print a command's help")
    .addHelpText("after", EXIT_CODES_HELP)
    .exitOverride();

  program
    .command("serve")
    .description("run the daemon in the foreground")
    .option("--port <n>", "port on 127.0.0.1 (0: any free port; default $VIGIL_PORT or 7391)")
    .option(
      "--database <url>",
      "team mode: the store on PostgreSQL at this postgres:// URL, without its password (default $VIGIL_DATABASE_URL; else the home's SQLite file)",
    )
    .option(
      "--host-name <name>",
      "team mode: this daemon's name among the hosts of the database (default $VIGIL_HOST_NAME, else the machine's hostname)",
    )
    .action(async (options: { port?: string; database?: string; hostName?: string }, command: Command) => {
      const { runDaemon } = await import("../daemon.js");
      const { DEFAULT_PORT } = await import("../base/home.js");
      const { envConfig } = await import("../base/config.js");
      const port =
        options.port === undefined
          ? (envConfig().VIGIL_PORT ?? DEFAULT_PORT)
          : parseInteger("--port", options.port, [0, 65535]);
      const hostName = options.hostName === undefined ? undefined : checkHostName("--host-name", options.hostName);
      try {
        const { checkArgvUrl } = await import("../base/database-url.js");
        const database = options.database === undefined ? undefined : checkArgvUrl(options.database);
        await runDaemon({
          home: homeOf(command),
          port,
          ...(database === undefined ? {} : { database }),
          ...(hostName === undefined ? {} : { hostName }),
        });
      } catch (error) {
        // A daemon that cannot start (a bad settings key, the port taken, another daemon on this
        // home) says so in one line and exits at once, so launchers and the native host can report it.
        printError(`vigil: ${(error as Error).message}`);
        process.exit(1);
      }
    });

  program
    .command("mcp")
    .description("the MCP server an agent client launches (stdio); starts the daemon when needed")
    .option("--session <id>", "bind to this session (default: create one, delivering by MCP push)")
    .action(async (options: { session?: string }, command: Command) => {
      const { runMcpServer } = await import("../mcp/server.js");
      await runMcpServer({ home: homeOf(command), session: options.session });
      process.exit(0);
    });

  program
    .command("native-host")
    .description("the native-messaging bridge the browser launches (stdio framing); not for people")
    .argument("[origin...]", "what the browser passes (the calling extension's origin)")
    .allowUnknownOption()
    .action(async (origin: string[], _options: unknown, command: Command) => {
      const { runNativeHost } = await import("../native/bridge.js");
      await runNativeHost({ home: homeOf(command), origin: origin[0] });
      process.exit(0);
    });

  registerSessionCommands(program);
  registerMonitorCommands(program);
  registerWaitPrCommand(program);
  registerVaultCommands(program);
  registerDeviceCommands(program);
  registerHostCommands(program);
  registerNotifyCommands(program);
  registerWaitpointCommands(program);
  registerSignalCommand(program);
  registerInstallCommands(program);
  registerSetupCommands(program);
  registerServiceCommands(program);
  registerHookCommands(program);
  configureErrors(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  // `vigil … | head`: a reader that stops reading ends the command quietly, as other CLIs do.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
  const program = buildProgram();
  // The command whose action runs, so that a usage error found there can say where its help is.
  let running: Command = program;
  program.hook("preAction", (_program, action) => {
    running = action;
  });
  try {
    const words = helpRequest(argv.slice(2));
    if (words) {
      const target = findCommand(program, words);
      if (!target) throw usageError(`unknown command '${words.join(" ")}'`);
      target.outputHelp();
      return;
    }
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // An agent's hook must never block its agent (exit 2 there means "refuse the prompt").
      process.exitCode = error.exitCode === 0 || argv.includes("hook") ? EXIT.done : EXIT.usage;
      return;
    }
    if (error instanceof CliError) {
      printError(`vigil: ${error.message}`);
      if (error.exitCode === EXIT.usage) printError(`Try '${commandPath(running)} --help'`);
      process.exitCode = error.exitCode;
      return;
    }
    printError(`vigil: ${(error as Error).message ?? String(error)}`);
    process.exitCode = EXIT.failed;
  }
}

/**
 * `vigil [--home DIR] help [COMMAND…]`: the words after `help`, else null. Commander's own help
 * command takes one word; this one follows subcommands too (`vigil help sessions turn`).
 */
export function helpRequest(args: string[]): string[] | null {
  let at = 0;
  while (at < args.length && args[at]?.startsWith("-")) at += args[at] === "--home" ? 2 : 1;
  if (args[at] !== "help") return null;
  return args.slice(at + 1).filter((word) => word !== "-h" && word !== "--help");
}
