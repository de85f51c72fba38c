/**
 * Finds the Chromium the browser tests drive: $CHROME_PATH, else Debian's /usr/bin/chromium,
 * installed through apt when absent and running as root; otherwise a clear error naming CHROME_PATH.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

export function findChromium(): string {
  const given = process.env.CHROME_PATH;
  if (given) {
    if (!existsSync(given)) throw new Error(`CHROME_PATH is ${given}, which does not exist`);
    return given;
  }
  const found = CANDIDATES.find((path) => existsSync(path));
  if (found) return found;
  if (process.getuid?.() === 0) {
    process.stderr.write("Chromium is missing: installing Debian's chromium with apt (once)…\n");
    execFileSync("apt-get", ["update", "-qq"], { stdio: "ignore" });
    execFileSync("apt-get", ["install", "-y", "-qq", "chromium"], {
      stdio: "ignore",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    if (existsSync("/usr/bin/chromium")) return "/usr/bin/chromium";
  }
  throw new Error(
    "The browser tests need Chromium: install it (Debian: apt-get install chromium) or set CHROME_PATH to a Chromium or Chrome binary",
  );
}

/** vitest globalSetup: resolve (and if need be install) Chromium once, before any browser test. */
export default function setup(): void {
  process.env.CHROME_PATH = findChromium();
}
