/**
 * What the browser and device tests need from the machine: a program found at `$ENV_VAR` or at one
 * of its usual paths, else installed with apt when running as root; otherwise a clear error naming
 * the package and the variable. The tests never skip for a missing program.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

export interface Needed {
  /** What it is, for the messages: "Chromium". */
  name: string;
  /** Where it usually is; the first is where the package puts it. */
  paths: string[];
  aptPackage: string;
  /** A variable naming another binary (CHROME_PATH). */
  envVar?: string;
}

export function findOrInstall(needed: Needed): string {
  const given = needed.envVar ? process.env[needed.envVar] : undefined;
  if (given) {
    if (!existsSync(given)) throw new Error(`${needed.envVar} is ${given}, which does not exist`);
    return given;
  }
  const found = needed.paths.find((path) => existsSync(path));
  if (found) return found;
  if (process.getuid?.() === 0) {
    process.stderr.write(`${needed.name} is missing: installing Debian's ${needed.aptPackage} with apt (once)…\n`);
    execFileSync("apt-get", ["update", "-qq"], { stdio: "ignore" });
    execFileSync("apt-get", ["install", "-y", "-qq", needed.aptPackage], {
      stdio: "ignore",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    const installed = needed.paths.find((path) => existsSync(path));
    if (installed) return installed;
  }
  const or = needed.envVar ? ` or set ${needed.envVar} to a ${needed.name} binary` : "";
  throw new Error(`These tests need ${needed.name}: install it (Debian: apt-get install ${needed.aptPackage})${or}`);
}
