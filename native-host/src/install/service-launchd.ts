/**
 * The launchd agent `vigil service install` writes on macOS: a pure rendering of a ServiceSpec.
 * launchd reads no environment file, so the values `--env` names go into the plist's
 * `EnvironmentVariables`, and the plist is written 0600. Format: launchd.plist(5).
 * Design: docs/design.md §7.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { type ServiceManager, type ServiceSpec, serviceArgv } from "./service-spec.js";

export const LAUNCHD_LABEL = "vigil.daemon";

export interface LaunchdFiles {
  plist: string;
  /** Where launchd writes the daemon's stdout and stderr (it also keeps $VIGIL_HOME/vigil.log). */
  log: string;
}

export function launchdFiles(): LaunchdFiles {
  return {
    plist: join(homedir(), "Library", "LaunchAgents", `${LAUNCHD_LABEL}.plist`),
    log: join(homedir(), "Library", "Logs", "vigil.log"),
  };
}

const xml = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
const key = (name: string) => `\t<key>${xml(name)}</key>`;
const string = (value: string, indent = "\t") => `${indent}<string>${xml(value)}</string>`;

export function renderPlist(spec: ServiceSpec, files: LaunchdFiles): string {
  const environment = [{ name: "PATH", value: spec.path }, ...spec.env];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    "<!-- Written by `vigil service install`; `vigil service uninstall` removes it. Edits are overwritten. -->",
    '<plist version="1.0">',
    "<dict>",
    key("Label"),
    string(LAUNCHD_LABEL),
    key("ProgramArguments"),
    "\t<array>",
    ...serviceArgv(spec).map((word) => string(word, "\t\t")),
    "\t</array>",
    key("EnvironmentVariables"),
    "\t<dict>",
    ...environment.flatMap(({ name, value }) => [`\t\t<key>${xml(name)}</key>`, string(value, "\t\t")]),
    "\t</dict>",
    key("RunAtLoad"),
    "\t<true/>",
    // Started again when it exits with an error (Restart=on-failure), at most every 5 seconds.
    key("KeepAlive"),
    "\t<dict>",
    "\t\t<key>SuccessfulExit</key>",
    "\t\t<false/>",
    "\t</dict>",
    key("ThrottleInterval"),
    "\t<integer>5</integer>",
    key("StandardOutPath"),
    string(files.log),
    key("StandardErrorPath"),
    string(files.log),
    "</dict>",
    "</plist>",
    "",
  ].join("\n");
}

/** A line `  name = value` of `launchctl print`, at the service's own level. */
const printed = (stdout: string, name: string) => new RegExp(`^\\t${name} = (.+)$`, "m").exec(stdout)?.[1]?.trim();

export function launchdManager(uid: number, files: LaunchdFiles = launchdFiles()): ServiceManager {
  const target = `gui/${uid}/${LAUNCHD_LABEL}`;
  return {
    name: "launchd",
    probe: ["launchctl", "print", `gui/${uid}`],
    unreachable: `launchctl cannot reach this user's login session (gui/${uid}; an ssh session or CI has none)`,
    files: (spec) => [
      {
        path: files.plist,
        text: renderPlist(spec, files),
        mode: 0o600,
        ...(spec.env.length > 0
          ? { note: `0600: launchd reads no environment file, so it holds ${spec.env.map((e) => e.name).join(", ")}` }
          : {}),
      },
    ],
    paths: [files.plist],
    // bootout first (mayFail: not loaded yet), so a second install loads the new plist and restarts.
    install: [{ argv: ["launchctl", "bootout", target], mayFail: true }, { argv: ["launchctl", "enable", target] }],
    start: [{ argv: ["launchctl", "bootstrap", `gui/${uid}`, files.plist] }],
    uninstall: [{ argv: ["launchctl", "bootout", target], mayFail: true }],
    afterRemove: [],
    status: ["launchctl", "print", target],
    parseStatus: (exitCode, stdout) => {
      if (exitCode !== 0) return { loaded: false, active: false, pid: null, detail: "not loaded" };
      const state = printed(stdout, "state") ?? "unknown";
      const pid = Number(printed(stdout, "pid") ?? 0);
      return {
        loaded: true,
        active: state === "running",
        pid: pid > 0 ? pid : null,
        detail: `${state}${pid > 0 ? `, pid ${pid}` : ""}`,
      };
    },
    atLogin: "it starts when you log in",
    logs: files.log,
  };
}
