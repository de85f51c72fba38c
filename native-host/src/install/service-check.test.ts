import { expect, test } from "vitest";
import { type ServiceState, serviceFinding } from "./service-check.js";

test.each<[ServiceState, string, string | undefined]>([
  [
    { manager: "systemd --user", installed: true, running: true },
    "ok: the daemon runs as a systemd --user service",
    undefined,
  ],
  [
    { manager: "launchd", installed: false, running: false },
    "FIX: the daemon is not installed as a launchd service: it will not start at login",
    "vigil service install",
  ],
  [
    { manager: "systemd --user", installed: true, running: false, detail: "exited 1" },
    "FIX: the systemd --user service is installed but not running (exited 1)",
    "vigil service status (and vigil service install to start it again)",
  ],
  [
    { manager: null, installed: false, running: false, detail: "systemd is not PID 1 here" },
    "ok: no service manager here (systemd is not PID 1 here): the daemon runs while vigil serve, or a client that started it, runs",
    undefined,
  ],
])("service state %j → %s", (state, line, fix) => {
  const finding = serviceFinding(state, "vigil");
  expect(`${finding.ok ? "ok" : "FIX"}: ${finding.what}`).toBe(line);
  expect(finding.fix).toBe(fix);
});
