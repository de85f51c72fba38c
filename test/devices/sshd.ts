/**
 * vitest globalSetup of the device tests: Debian's openssh-server and inotify-tools (installed
 * through apt when absent and running as root, the way test/e2e/chromium.ts installs Chromium) and
 * the two local users the tests log in as (ssh-device.js). Otherwise a clear error: these tests
 * never skip silently.
 */
import { findOrInstall } from "../helpers/apt.js";
import { ensureDeviceUsers, INOTIFYWAIT, SSHD } from "./ssh-device.js";

export default function setup(): void {
  findOrInstall({ name: "sshd", paths: [SSHD], aptPackage: "openssh-server" });
  findOrInstall({ name: "inotifywait", paths: [INOTIFYWAIT], aptPackage: "inotify-tools" });
  ensureDeviceUsers();
}
