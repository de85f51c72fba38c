/**
 * Finds the Firefox the browser tests drive: $FIREFOX_PATH, else Debian's /usr/bin/firefox-esr
 * (or /usr/bin/firefox), installed through apt when absent and running as root; otherwise a clear
 * error naming FIREFOX_PATH. Never skips: the Firefox suite fails loudly without a Firefox.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { findOrInstall } from "../helpers/apt.js";

export const findFirefox = (): string =>
  findOrInstall({
    name: "Firefox",
    paths: ["/usr/bin/firefox-esr", "/usr/bin/firefox"],
    aptPackage: "firefox-esr",
    envVar: "FIREFOX_PATH",
  });

/** vitest globalSetup: resolve (and if need be install) Firefox once, before any Firefox test. */
export default function setup(): void {
  process.env.FIREFOX_PATH = findFirefox();
  const manifest = join(import.meta.dirname, "..", "..", ".output", "firefox-mv3", "manifest.json");
  if (!existsSync(manifest))
    throw new Error(`The Firefox build is missing (${manifest}): run npx wxt build -b firefox --mv3 first`);
}
