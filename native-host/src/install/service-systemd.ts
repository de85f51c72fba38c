/**
 * The systemd user unit `vigil service install` writes on Linux, and its environment file: pure
 * renderings of a ServiceSpec. The values `--env` names live only in the environment file (0600),
 * which the unit names with `EnvironmentFile=`, never in the unit, an argv or the output.
 * Syntax: systemd.syntax(7), systemd.service(5) "Command lines", systemd.exec(5) "Environment".
 * Design: docs/design.md §7.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { type ServiceManager, type ServiceSpec, serviceArgv } from "./service-spec.js";

export const SYSTEMD_UNIT = "vigil.service";

export interface SystemdFiles {
  unit: string;
  envFile: string;
}

/** Where the unit and its environment file go: `$XDG_CONFIG_HOME` (default ~/.config). */
export function systemdFiles(env: NodeJS.ProcessEnv = process.env): SystemdFiles {
  const config = env.XDG_CONFIG_HOME?.startsWith("/") ? env.XDG_CONFIG_HOME : join(homedir(), ".config");
  return { unit: join(config, "systemd", "user", SYSTEMD_UNIT), envFile: join(config, "vigil", "service.env") };
}

/** One word of a unit's setting: `%` is a specifier and `$` a variable there, so both are doubled. */
function unitWord(word: string): string {
  const escaped = word.replaceAll("%", "%%").replaceAll("$", "$$$$");
  return /[\s"'\\;]/.test(escaped) || escaped === "" ? `"${escaped.replace(/(["\\])/g, "\\$1")}"` : escaped;
}

export function renderUnit(spec: ServiceSpec, files: SystemdFiles): string {
  const environmentFile = spec.env.length > 0 ? [`EnvironmentFile=${unitWord(files.envFile)}`] : [];
  return [
    "# Written by `vigil service install`; `vigil service uninstall` removes it. Edits are overwritten.",
    "[Unit]",
    "Description=Vigil daemon: durable wake-me-when monitors for AI agents",
    // A daemon that cannot start (another daemon on its home, a bad setting) stops being retried.
    "StartLimitIntervalSec=60",
    "StartLimitBurst=5",
    "",
    "[Service]",
    "Type=simple",
    `ExecStart=${serviceArgv(spec).map(unitWord).join(" ")}`,
    `Environment=${unitWord(`PATH=${spec.path}`)}`,
    ...environmentFile,
    "Restart=on-failure",
    "RestartSec=5",
    // SIGTERM to the daemon alone: it stops its own checks and wakes; what is left is killed after.
    "KillMode=mixed",
    "StandardOutput=journal",
    "StandardError=journal",
    "SyslogIdentifier=vigil",
    "",
    "[Install]",
    "WantedBy=default.target",
    "",
  ].join("\n");
}

/** `NAME="value"` lines, quoted as systemd.exec(5) reads an EnvironmentFile (shell-like quoting). */
export function renderEnvFile(spec: ServiceSpec): string {
  const lines = spec.env.map(({ name, value }) => `${name}="${value.replace(/(["\\`$])/g, "\\$1")}"`);
  return [
    "# Written by `vigil service install --env NAME`: values copied from that shell. Mode 0600.",
    ...lines,
    "",
  ].join("\n");
}

/** `systemctl --user show -p …` lines, `Key=value`, as a map. */
function showProperties(stdout: string): Map<string, string> {
  return new Map(
    stdout
      .split("\n")
      .filter((line) => line.includes("="))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1).trim()]),
  );
}

export function systemdManager(files: SystemdFiles = systemdFiles()): ServiceManager {
  const user = (...args: string[]) => ["systemctl", "--user", ...args];
  return {
    name: "systemd",
    probe: user("show-environment"),
    unreachable: "systemctl --user cannot reach a systemd user manager (none runs in a container or CI)",
    files: (spec) => [
      { path: files.unit, text: renderUnit(spec, files), mode: 0o644 },
      ...(spec.env.length > 0
        ? [
            {
              path: files.envFile,
              text: renderEnvFile(spec),
              mode: 0o600,
              note: `0600, the values of ${spec.env.map((entry) => entry.name).join(", ")}`,
            },
          ]
        : []),
    ],
    paths: [files.unit, files.envFile],
    install: [{ argv: user("daemon-reload") }, { argv: user("enable", SYSTEMD_UNIT) }],
    start: [{ argv: user("restart", SYSTEMD_UNIT) }],
    uninstall: [{ argv: user("disable", "--now", SYSTEMD_UNIT), mayFail: true }],
    afterRemove: [user("daemon-reload")],
    status: user("show", "-p", "LoadState,ActiveState,SubState,MainPID,UnitFileState", SYSTEMD_UNIT),
    parseStatus: (_exitCode, stdout) => {
      const show = showProperties(stdout);
      const pid = Number(show.get("MainPID") ?? 0);
      const loaded = show.get("LoadState") === "loaded";
      const active = show.get("ActiveState") === "active";
      const state = `${show.get("ActiveState") ?? "unknown"} (${show.get("SubState") ?? "unknown"})`;
      return {
        loaded,
        active,
        pid: pid > 0 ? pid : null,
        detail: loaded
          ? `${state}${pid > 0 ? `, pid ${pid}` : ""}, ${show.get("UnitFileState") ?? "unknown"} at login`
          : `not loaded (${show.get("LoadState") ?? "no answer"})`,
      };
    },
    atLogin:
      "it starts when you log in and stops after your last session ends (to keep it running without one: loginctl enable-linger)",
    logs: "journalctl --user -u vigil",
  };
}
