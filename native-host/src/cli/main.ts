/**
 * The `vigil` command line (design.md §7, §11). Each subcommand is a thin HTTP client of the daemon,
 * except `serve`. Errors are one line on stderr and a nonzero exit.
 */
import { Command, CommanderError } from "commander";
import { CliError } from "../api/client.js";
import { homeOf } from "./context.js";
import { registerHookCommands } from "./hook-commands.js";
import { registerInstallCommands } from "./install-commands.js";
import { registerMonitorCommands } from "./monitor-commands.js";
import { registerSessionCommands } from "./session-commands.js";
import { registerSetupCommands } from "./setup-commands.js";
import { registerSignalCommand } from "./signal-command.js";
import { registerVaultCommands } from "./vault-commands.js";

export function buildProgram(): Command {
  const program = new Command("vigil")
    .description("Durable wake-me-when monitors for AI agents")
    .option("--home <dir>", "Vigil's home folder (default: $VIGIL_HOME or ~/.vigil)")
    .showHelpAfterError()
    .exitOverride();

  program
    .command("serve")
    .description("run the daemon in the foreground")
    .option("--port <n>", "port on 127.0.0.1 (0: any free port; default $VIGIL_PORT or 7391)")
    .action(async (options: { port?: string }, command: Command) => {
      const { runDaemon } = await import("../daemon.js");
      const { DEFAULT_PORT } = await import("../base/home.js");
      const { envConfig } = await import("../base/config.js");
      const raw = options.port ?? String(envConfig().VIGIL_PORT ?? DEFAULT_PORT);
      const port = Number(raw);
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        throw new CliError(`Expected --port 0–65535, got ${raw}`, 2);
      }
      try {
        await runDaemon({ home: homeOf(command), port });
      } catch (error) {
        // A daemon that cannot start (a bad settings key, the port taken, another daemon on this
        // home) says so in one line and exits at once, so launchers and the native host can report it.
        process.stderr.write(`vigil: ${(error as Error).message}\n`);
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
  registerVaultCommands(program);
  registerSignalCommand(program);
  registerInstallCommands(program);
  registerSetupCommands(program);
  registerHookCommands(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  // `vigil … | head`: a reader that stops reading ends the command quietly, as other CLIs do.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // An agent's hook must never block its agent (exit 2 there means "refuse the prompt").
      process.exitCode = error.exitCode === 0 || argv.includes("hook") ? 0 : 2;
      return;
    }
    if (error instanceof CliError) {
      process.stderr.write(`vigil: ${error.message}\n`);
      process.exitCode = error.exitCode;
      return;
    }
    process.stderr.write(`vigil: ${(error as Error).message ?? String(error)}\n`);
    process.exitCode = 1;
  }
}
