/**
 * vitest globalSetup of the device tests: Debian's openssh-server (installed through apt when
 * absent and running as root, the way test/e2e/chromium.ts installs Chromium) and a separate local
 * user the tests log in as. Otherwise a clear error: these tests never skip silently.
 */
import { execFileSync } from "node:child_process";
import { findOrInstall } from "../helpers/apt.js";

export const SSHD = "/usr/sbin/sshd";
export const DEVICE_USER = "vigil-dev";

function hasUser(name: string): boolean {
  try {
    execFileSync("id", [name], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

export default function setup(): void {
  const root = process.getuid?.() === 0;
  findOrInstall({ name: "sshd", paths: [SSHD], aptPackage: "openssh-server" });
  if (!root) throw new Error(`The device tests run sshd and log in as the user ${DEVICE_USER}: run them as root`);
  if (!hasUser(DEVICE_USER)) execFileSync("useradd", ["-m", "-s", "/bin/sh", DEVICE_USER], { stdio: "ignore" });
  // useradd leaves the password locked ("!"); sshd without PAM then refuses even key logins.
  execFileSync("usermod", ["-p", "*", DEVICE_USER], { stdio: "ignore" });
  execFileSync("mkdir", ["-p", "/run/sshd"], { stdio: "ignore" });
}
