/**
 * The service check of `vigil doctor`: `vigil service` (service.ts) answers `serviceState()`;
 * doctor (cli/doctor-command.ts) turns that into one line.
 * Design: docs/design.md §7.
 */
import type { Finding } from "./install.js";

export interface ServiceState {
  /** What runs it: "systemd --user", "launchd", or null when this machine has neither. */
  manager: string | null;
  /** The unit or plist file is written. */
  installed: boolean;
  /** The manager says it runs. */
  running: boolean;
  /** One line of what the manager said, when it is not simply running (e.g. "systemd is not PID 1 here"). */
  detail?: string;
}

export type ServiceStateProbe = (home: string) => Promise<ServiceState>;

/** One line for the service: running, or what to run. `vigil` is how the user runs Vigil. */
export function serviceFinding(state: ServiceState, vigil: string): Finding {
  const detail = state.detail ? ` (${state.detail})` : "";
  // A container or CI runner has none: nothing to fix there (the daemon line says whether one runs).
  if (state.manager === null)
    return {
      ok: true,
      what: `no service manager here${detail}: the daemon runs while ${vigil} serve, or a client that started it, runs`,
    };
  if (!state.installed)
    return {
      ok: false,
      what: `the daemon is not installed as a ${state.manager} service: it will not start at login`,
      fix: `${vigil} service install`,
    };
  if (!state.running)
    return {
      ok: false,
      what: `the ${state.manager} service is installed but not running${detail}`,
      fix: `${vigil} service status (and ${vigil} service install to start it again)`,
    };
  return { ok: true, what: `the daemon runs as a ${state.manager} service` };
}
