/**
 * `vigil service install|uninstall|status`: the daemon as a login service of this user's service
 * manager (a systemd user unit on Linux, a launchd agent on macOS). The commands run through an
 * injected `run` (tests put a recording `systemctl` on PATH); no value `--env` names ever goes on
 * a command line or into the output. Where no manager can be reached (a container, CI) it says so
 * and gives the one line that runs the daemon instead. Design: docs/design.md §7.
 */
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { answers, isAlive, readDaemonInfo } from "../base/home.js";
import { vigilCommandLine } from "../base/how-to-run.js";
import { loadExeca } from "../base/lazy-execa.js";
import { homePaths } from "../base/paths.js";
import { launchdManager } from "./service-launchd.js";
import type { ManagerView, ServiceFile, ServiceManager, ServiceSpec, ServiceStep } from "./service-spec.js";
import { systemdManager } from "./service-systemd.js";

export interface RunResult {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  /** The program is not installed (ENOENT). */
  missing?: boolean;
}
export type RunCommand = (argv: string[]) => Promise<RunResult>;

/** Runs a service manager's command: no shell, bounded, its result as flags (never a throw). */
export const runCommand: RunCommand = async ([file, ...args]) => {
  const execa = await loadExeca();
  const result = await execa(file as string, args, { reject: false, timeout: 30_000, stdin: "ignore" });
  const text = (out: unknown) => (typeof out === "string" ? out : "");
  const missing = (result as { code?: string }).code === "ENOENT";
  return {
    exitCode: result.exitCode,
    stdout: text(result.stdout),
    stderr: text(result.stderr) || (result.shortMessage ?? ""),
    missing,
  };
};

export interface ServiceContext {
  run: RunCommand;
  platform: NodeJS.Platform;
  uid: number;
}

export const currentContext = (): ServiceContext => ({
  run: runCommand,
  platform: process.platform,
  uid: process.getuid?.() ?? 0,
});

/** No service manager can be reached: why, and the line that runs the daemon instead. */
export class NoServiceManagerError extends Error {
  override name = "NoServiceManagerError";
  constructor(
    why: string,
    readonly fallback: string,
  ) {
    super(`No service manager to run Vigil at login: ${why}. Run the daemon in the background yourself instead:`);
  }
}

/** This platform's manager (not yet asked whether it can be reached). */
export function managerFor(context: ServiceContext): ServiceManager | null {
  if (context.platform === "linux") return systemdManager();
  if (context.platform === "darwin") return launchdManager(context.uid);
  return null;
}

const firstLine = (text: string) => text.trim().split("\n")[0] ?? "";
const shown = (argv: string[]) => argv.join(" ");

/** The manager, when it answers; else why not (`systemctl --user` with no user bus, no launchctl). */
export async function reachableManager(
  context: ServiceContext,
): Promise<{ manager: ServiceManager; why?: undefined } | { manager: null; why: string }> {
  const manager = managerFor(context);
  if (!manager)
    return {
      manager: null,
      why: `Vigil's service uses systemd (Linux) or launchd (macOS); this is ${context.platform}`,
    };
  const probe = await context.run(manager.probe);
  if (probe.exitCode === 0) return { manager };
  const program = manager.probe[0] as string;
  if (probe.missing) return { manager: null, why: `${program} is not installed` };
  return { manager: null, why: `${manager.unreachable}: ${firstLine(probe.stderr) || "no answer"}` };
}

/** The line that runs the daemon without a service manager (it logs to HOME/vigil.log itself). */
export function fallbackLine(home: string): string {
  return `nohup ${vigilCommandLine("serve", home)} >/dev/null 2>&1 &`;
}

async function runAll(context: ServiceContext, steps: ServiceStep[], say: (line: string) => void) {
  for (const step of steps) {
    const result = await context.run(step.argv);
    if (result.exitCode !== 0 && !step.mayFail)
      throw new Error(`\`${shown(step.argv)}\` failed (exit ${result.exitCode}): ${firstLine(result.stderr)}`);
    say(`ran ${shown(step.argv)}`);
  }
}

async function managerView(context: ServiceContext, manager: ServiceManager): Promise<ManagerView> {
  const result = await context.run(manager.status);
  return manager.parseStatus(result.exitCode, result.stdout);
}

async function pollUntil(probe: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A daemon on this home that the service did not start (auto-started by `vigil mcp`, or run by
 * hand) holds the home's lock, so the service's daemon could not start: stop it first (SIGTERM, the
 * clean stop; its monitors are in the store and the service's daemon carries them on).
 */
async function stopOutsideDaemon(home: string, servicePid: number | null, say: (line: string) => void) {
  const paths = homePaths(home);
  const info = readDaemonInfo(paths);
  if (!info || info.pid === servicePid || !isAlive(info.pid) || !(await answers(paths))) return;
  process.kill(info.pid, "SIGTERM");
  // Stopped once it is gone or has taken its daemon.json away (its last step: an orphan in a
  // container may stay a zombie, which kill(pid, 0) still finds).
  const stopped = () => !isAlive(info.pid) || readDaemonInfo(paths)?.pid !== info.pid;
  if (!(await pollUntil(stopped, 10_000)))
    throw new Error(
      `The daemon running outside the service (pid ${info.pid}) did not stop within 10 s: stop it (kill ${info.pid}) and run vigil service install again`,
    );
  say(
    `stopped the daemon that ran outside the service (pid ${info.pid}); the service's daemon takes over its monitors`,
  );
}

/** Written whole under a temporary name with its mode, then renamed: never readable with a looser one. */
function writeServiceFile(file: ServiceFile): void {
  mkdirSync(dirname(file.path), { recursive: true, mode: 0o700 });
  const temporary = `${file.path}.${process.pid}.tmp`;
  rmSync(temporary, { force: true });
  writeFileSync(temporary, file.text, { mode: file.mode, flag: "wx" });
  chmodSync(temporary, file.mode); // the umask may have taken bits off
  renameSync(temporary, file.path);
}

export interface InstallOptions {
  spec: ServiceSpec;
  /** The resolved home (spec.home is null for the default one). */
  home: string;
  say: (line: string) => void;
  context?: ServiceContext;
  /** How long the daemon has to answer on its socket once started. */
  answerTimeoutMs?: number;
}

/** Writes the files, loads them, stops a daemon outside the service, (re)starts it, waits for it to answer. */
export async function installService(options: InstallOptions): Promise<void> {
  const { spec, home, say, context = currentContext() } = options;
  const reached = await reachableManager(context);
  if (!reached.manager) throw new NoServiceManagerError(reached.why, fallbackLine(home));
  const { manager } = reached;
  const files = manager.files(spec);
  for (const file of files) {
    writeServiceFile(file);
    say(`wrote ${file.path}${file.note ? ` (${file.note})` : ""}`);
  }
  for (const stale of manager.paths.filter((path) => !files.some((file) => file.path === path) && existsSync(path))) {
    rmSync(stale);
    say(`removed ${stale} (no --env names this time)`);
  }
  await runAll(context, manager.install, say);
  await stopOutsideDaemon(home, (await managerView(context, manager)).pid, say);
  await runAll(context, manager.start, say);
  const paths = homePaths(home);
  if (!(await pollUntil(() => answers(paths), options.answerTimeoutMs ?? 20_000)))
    throw new Error(`The service started, but no daemon answers on ${paths.apiSocket}: see ${manager.logs}`);
  say(
    `the daemon answers on ${paths.apiSocket} (pid ${readDaemonInfo(paths)?.pid ?? "?"}); ${manager.atLogin}. Logs: ${manager.logs}`,
  );
}

/** Stops and disables the service, removes its files. */
export async function uninstallService(options: {
  say: (line: string) => void;
  context?: ServiceContext;
  home: string;
}) {
  const { say, context = currentContext() } = options;
  const reached = await reachableManager(context);
  if (!reached.manager) throw new NoServiceManagerError(reached.why, fallbackLine(options.home));
  const { manager } = reached;
  await runAll(context, manager.uninstall, say);
  const present = manager.paths.filter((path) => existsSync(path));
  for (const path of present) {
    rmSync(path);
    say(`removed ${path}`);
  }
  if (present.length === 0) say(`nothing to remove: no ${manager.paths.join(", no ")}`);
  await runAll(
    context,
    manager.afterRemove.map((argv) => ({ argv })),
    say,
  );
}

export interface ServiceState {
  manager: "systemd" | "launchd" | null;
  installed: boolean;
  /** Whether the manager runs it; null when no manager can be reached. */
  active: boolean | null;
  /** One line: the manager's view, or why there is none. */
  detail: string;
  pid: number | null;
  /** Its files on disk. */
  files: string[];
}

/** What the service manager says of Vigil's service (for `vigil service status` and `vigil doctor`). */
export async function serviceState(context: ServiceContext = currentContext()): Promise<ServiceState> {
  const reached = await reachableManager(context);
  if (!reached.manager)
    return {
      manager: null,
      installed: false,
      active: null,
      detail: `no service manager: ${reached.why}`,
      pid: null,
      files: [],
    };
  const { manager } = reached;
  const files = manager.paths.filter((path) => existsSync(path));
  const view = await managerView(context, manager);
  const installed = files.length > 0;
  return {
    manager: manager.name,
    installed,
    active: view.active,
    detail: installed || view.loaded ? `${manager.name}: ${view.detail}` : `${manager.name}: not installed`,
    pid: view.pid,
    files,
  };
}
