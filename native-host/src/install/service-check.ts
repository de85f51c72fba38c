/**
 * The service check of `vigil doctor`, behind a small interface: `vigil service` (service.ts)
 * answers `serviceState()`; doctor turns that into one line. Until it is wired (cli/doctor-command.ts,
 * SERVICE_STATE), doctor reports no service line.
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
  if (state.manager === null)
    return {
      ok: false,
      what: `no service manager here to start the daemon at login${detail}`,
      fix: `${vigil} serve (run it yourself, or from your login script)`,
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
