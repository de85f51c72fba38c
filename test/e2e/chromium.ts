/**
 * Finds the Chromium the browser tests drive: $CHROME_PATH, else Debian's /usr/bin/chromium,
 * installed through apt when absent and running as root; otherwise a clear error naming CHROME_PATH.
 */
import { findOrInstall } from "../helpers/apt.js";

export const findChromium = (): string =>
  findOrInstall({
    name: "Chromium",
    paths: ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"],
    aptPackage: "chromium",
    envVar: "CHROME_PATH",
  });

/** vitest globalSetup: resolve (and if need be install) Chromium once, before any browser test. */
export default function setup(): void {
  process.env.CHROME_PATH = findChromium();
}
