/**
 * What a login service runs, gathered once from this shell: the node and the `bin/vigil.js` that
 * run now, the home (named only when it is not the default), PATH (its absolute entries, without
 * npm's per-command ones, so the agents' CLIs are found), and the variables `--env NAME` copies.
 * The systemd unit and the launchd plist are rendered from this alone (service-systemd.ts,
 * service-launchd.ts). Design: docs/design.md §7.
 */
import { homedir } from "node:os";
import { isAbsolute, join, sep } from "node:path";
import { ValidationError } from "../base/errors.js";
import { userPathEntries } from "../base/how-to-run.js";
import { packageRoot } from "../base/paths.js";

export interface ServiceSpec {
  /** The absolute path of node. */
  node: string;
  /** The absolute path of the package's `bin/vigil.js`. */
  script: string;
  /** The Vigil home, or null for the default one (~/.vigil). */
  home: string | null;
  /** PATH for the daemon and the agents it wakes. */
  path: string;
  /** The variables the service gets besides PATH: names and this shell's values. */
  env: ReadonlyArray<{ name: string; value: string }>;
}

/**
 * The daemon's command line: `--home` comes before the command (main.ts takes it there only). As
 * daemon-launch.ts does, the default home gets the default port and any other home a free one.
 */
export function serviceArgv(spec: ServiceSpec): string[] {
  if (spec.home === null) return [spec.node, spec.script, "serve"];
  return [spec.node, spec.script, "--home", spec.home, "serve", "--port", "0"];
}

/** Absolute PATH entries, each once, in order; npm's temporary ones (npx) left out. */
export function servicePath(env: NodeJS.ProcessEnv): string {
  return [...new Set(userPathEntries(env).filter((dir) => isAbsolute(dir)))].join(":");
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The `--env NAME` variables with their values in `env`. A name that is not a variable name, is
 * PATH (always set), or is not set here is refused; the message names the variable, never a value.
 */
export function namedVariables(names: readonly string[], env: NodeJS.ProcessEnv): ServiceSpec["env"] {
  const unique = [...new Set(names)];
  return unique.map((name) => {
    if (!ENV_NAME.test(name))
      throw new ValidationError(`Expected --env to name an environment variable (letters, digits, _), got ${name}`);
    if (name === "PATH")
      throw new ValidationError("Expected --env to name a variable other than PATH (the service always gets PATH)");
    const value = env[name];
    if (value === undefined || value === "")
      throw new ValidationError(
        `Expected $${name} to be set in this shell (--env copies its current value into the service), got nothing`,
      );
    if (/[\n\r\0]/.test(value))
      throw new ValidationError(`Expected $${name} to be one line, got a value with a line break or NUL`);
    return { name, value };
  });
}

/** The spec for this process: its node, this package's bin/vigil.js, `home`, PATH and `--env` names. */
/** The package's `bin/vigil.js`, refused when npx runs it from npm's cache (npm may clear it). */
export function installedScript(root: string): string {
  const script = join(root, "bin", "vigil.js");
  if (script.split(sep).includes("_npx"))
    throw new Error(
      `Expected an installed vigil for the service to run (npm install -g vigil), got the copy npx runs from npm's cache (${script}), which npm may remove`,
    );
  return script;
}

export function currentSpec(home: string, envNames: readonly string[], env = process.env): ServiceSpec {
  return {
    node: process.execPath,
    script: installedScript(packageRoot),
    home: home === join(homedir(), ".vigil") ? null : home,
    path: servicePath(env),
    env: namedVariables(envNames, env),
  };
}

/** The same spec with every value replaced by a placeholder: what `--dry-run` shows. */
export function withHiddenValues(spec: ServiceSpec): ServiceSpec {
  return { ...spec, env: spec.env.map(({ name }) => ({ name, value: HIDDEN })) };
}

export const HIDDEN = "<this shell's value, not shown>";

/** A file a service manager reads, as install writes it. */
export interface ServiceFile {
  path: string;
  text: string;
  mode: number;
  /** What to say about it (never a value). */
  note?: string;
}

/** What the manager says of the service: `pid` is its daemon's, when it runs one. */
export interface ManagerView {
  loaded: boolean;
  active: boolean;
  pid: number | null;
  /** One line, the manager's words: `active (running), pid 1234`. */
  detail: string;
}

/** A command a manager runs; `mayFail`: its failure is expected (stopping what is not loaded). */
export interface ServiceStep {
  argv: string[];
  mayFail?: boolean;
}

/**
 * One service manager (systemd, launchd): the files for a spec, the commands that load, restart and
 * remove them, and how to read its view. Commands are argv, never a shell line, and carry no value.
 */
export interface ServiceManager {
  name: "systemd" | "launchd";
  /** The command that succeeds only when this user's manager can be reached. */
  probe: string[];
  /** What a failed probe means, for the person: `systemctl --user cannot reach …`. */
  unreachable: string;
  files(spec: ServiceSpec): ServiceFile[];
  /** Every file install may have written (uninstall removes them). */
  paths: string[];
  /** After the files are written: load them and enable them at login. */
  install: ServiceStep[];
  /** Then, once no daemon outside the service holds the home: (re)start it. */
  start: ServiceStep[];
  /** Before the files are removed (mayFail: it may not be loaded), then `afterRemove`. */
  uninstall: ServiceStep[];
  afterRemove: string[][];
  status: string[];
  /** The manager's view from the status command's exit code and output. */
  parseStatus(exitCode: number | undefined, stdout: string): ManagerView;
  /** When it runs, for the person: `it starts at login …`. */
  atLogin: string;
  /** Where its log is read. */
  logs: string;
}
