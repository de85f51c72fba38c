/**
 * A real Chromium with the built Vigil extension, in a fresh profile whose native host manifest
 * was written by `vigil install --browser chromium --user-data-dir` (TOOLCHAIN.md's recipe).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import puppeteer, { type Browser, type Page, type WebWorker } from "puppeteer";
import { EXTENSION_ID } from "../../shared/extension-identity.js";
import { findChromium } from "../e2e/chromium.js";
import { ROOT, waitFor } from "./daemon.js";

export const EXTENSION_DIR = join(ROOT, ".output", "chrome-mv3");
export const PANEL_URL = `chrome-extension://${EXTENSION_ID}/sidepanel.html`;

const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export class TestBrowser {
  private constructor(
    readonly browser: Browser,
    readonly profile: string,
    readonly worker: WebWorker,
  ) {}

  /** `install(profile)` runs before launch (e.g. `vigil install --user-data-dir profile`). */
  static async launch(install?: (profile: string) => Promise<void>): Promise<TestBrowser> {
    const profile = mkdtempSync(join(tmpdir(), "vigil-chromium-"));
    if (install) await install(profile);
    const browser = await puppeteer.launch({
      executablePath: findChromium(),
      headless: true,
      pipe: true,
      enableExtensions: true,
      userDataDir: profile,
      args: ARGS,
    });
    const id = await browser.installExtension(EXTENSION_DIR);
    if (id !== EXTENSION_ID)
      throw new Error(`Expected extension id ${EXTENSION_ID} (from the manifest key), got ${id}`);
    const target = await browser.waitForTarget(
      (t) => t.type() === "service_worker" && t.url() === `chrome-extension://${EXTENSION_ID}/background.js`,
    );
    const worker = (await target.worker()) as WebWorker;
    // The target can appear before background.js ran: wait for its own global.
    await waitFor(() => worker.evaluate(() => "vigil" in globalThis), { what: "the background worker's globals" });
    return new TestBrowser(browser, profile, worker);
  }

  linkStatus(): Promise<string> {
    return this.worker.evaluate(() => (globalThis as any).vigil.host.state.status as string);
  }

  async panel(): Promise<Page> {
    const page = await this.browser.newPage();
    await page.goto(PANEL_URL);
    return page;
  }

  async close(): Promise<void> {
    await this.browser.close().catch(() => undefined);
    rmSync(this.profile, { recursive: true, force: true });
  }
}
