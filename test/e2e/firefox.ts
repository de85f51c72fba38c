/**
 * Finds the Firefox the browser tests drive: $FIREFOX_PATH, else Debian's /usr/bin/firefox-esr
 * (or /usr/bin/firefox), installed through apt when absent and running as root; otherwise a clear
 * error naming FIREFOX_PATH. Never skips: the Firefox suite fails loudly without a Firefox.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const CANDIDATES = ["/usr/bin/firefox-esr", "/usr/bin/firefox"];

export function findFirefox(): string {
  const given = process.env.FIREFOX_PATH;
  if (given) {
    if (!existsSync(given)) throw new Error(`FIREFOX_PATH is ${given}, which does not exist`);
    return given;
  }
  const found = CANDIDATES.find((path) => existsSync(path));
  if (found) return found;
  if (process.getuid?.() === 0) {
    process.stderr.write("Firefox is missing: installing Debian's firefox-esr with apt (once)…\n");
    execFileSync("apt-get", ["update", "-qq"], { stdio: "ignore" });
    execFileSync("apt-get", ["install", "-y", "-qq", "firefox-esr"], {
      stdio: "ignore",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    if (existsSync("/usr/bin/firefox-esr")) return "/usr/bin/firefox-esr";
  }
  throw new Error(
    "The Firefox browser tests need Firefox: install it (Debian: apt-get install firefox-esr) or set FIREFOX_PATH to a Firefox binary",
  );
}

/** vitest globalSetup: resolve (and if need be install) Firefox once, before any Firefox test. */
export default function setup(): void {
  process.env.FIREFOX_PATH = findFirefox();
  const manifest = join(import.meta.dirname, "..", "..", ".output", "firefox-mv3", "manifest.json");
  if (!existsSync(manifest))
    throw new Error(`The Firefox build is missing (${manifest}): run npx wxt build -b firefox --mv3 first`);
}
