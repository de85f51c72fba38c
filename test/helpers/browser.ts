/**
 * A real browser with the built Vigil extension, in a fresh profile, optionally with the native
 * host manifest written by the real `vigil install` (TOOLCHAIN.md's recipe):
 * - Chromium: `vigil install --browser chromium --user-data-dir <profile>` (a per-profile folder).
 * - Firefox: `vigil install --browser firefox` with HOME set to a temporary folder, since Firefox
 *   reads native hosts only from ~/.mozilla/native-messaging-hosts/; Firefox runs with that HOME.
 * Both implement ExtensionBrowser, so one suite (test/e2e/suite.ts) drives either.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import puppeteer, { type Browser, type Page, type WebWorker } from "puppeteer";
import { EXTENSION_ID, GECKO_ID } from "../../shared/extension-identity.js";
import { findChromium } from "../e2e/chromium.js";
import { findFirefox } from "../e2e/firefox.js";
import { BIN, ROOT, type TestDaemon, waitFor } from "./daemon.js";

export const EXTENSION_DIR = join(ROOT, ".output", "chrome-mv3");
export const PANEL_URL = `chrome-extension://${EXTENSION_ID}/sidepanel.html`;
export const FIREFOX_EXTENSION_DIR = join(ROOT, ".output", "firefox-mv3");
/** Firefox gives each install a random moz-extension:// UUID; the test profile pins it (pref below). */
export const FIREFOX_UUID = "6b1f7a53-3c2e-4d59-9a0e-7f3b2c1d0e11";
export const SIDEBAR_URL = `moz-extension://${FIREFOX_UUID}/sidepanel.html`;

export type BrowserKind = "chromium" | "firefox";

/** What the end-to-end suite needs from a browser running the extension. */
export interface ExtensionBrowser {
  readonly kind: BrowserKind;
  readonly browser: Browser;
  /** The background's HostConnection status: connecting, connected, no_host, daemon_down. */
  linkStatus(): Promise<string>;
  /** Whether the background marks this tab as watched. */
  isMarked(tabId: number): Promise<boolean>;
  /** Evaluates `expression` in the background, with `vigil` bound to what startBackground returned. */
  background<T>(expression: string): Promise<T>;
  /** The side panel (Chromium) / sidebar (Firefox) page, open in a tab. */
  panel(): Promise<Page>;
  reloadPanel(page: Page): Promise<void>;
  /** Makes `page` see `prefers-color-scheme: scheme` (dark screenshots and axe runs). */
  colorScheme(page: Page, scheme: "light" | "dark"): Promise<void>;
  /** What the browser says when the native host manifest is missing. */
  readonly noHostMessage: string;
  close(): Promise<void>;
}

const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export class TestBrowser implements ExtensionBrowser {
  readonly kind = "chromium";
  readonly noHostMessage = "Specified native messaging host not found.";

  private constructor(
    readonly browser: Browser,
    readonly profile: string,
    readonly worker: WebWorker,
  ) {}

  /**
   * `install(profile)` runs before launch (e.g. `vigil install --user-data-dir profile`);
   * `extensionDir` is the unpacked extension loaded (the checkout's build unless told).
   */
  static async launch(
    install?: (profile: string) => Promise<void>,
    extensionDir = EXTENSION_DIR,
  ): Promise<TestBrowser> {
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
    const id = await browser.installExtension(extensionDir);
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

  isMarked(tabId: number): Promise<boolean> {
    return this.worker.evaluate((t) => (globalThis as any).vigil.marks.marked.has(t) as boolean, tabId);
  }

  background<T>(expression: string): Promise<T> {
    return this.worker.evaluate(`(async (vigil) => (${expression}))(globalThis.vigil)`) as Promise<T>;
  }

  colorScheme(page: Page, scheme: "light" | "dark"): Promise<void> {
    return page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: scheme }]);
  }

  async panel(): Promise<Page> {
    const page = await this.browser.newPage();
    await page.goto(PANEL_URL);
    return page;
  }

  async reloadPanel(page: Page): Promise<void> {
    await page.reload();
  }

  async close(): Promise<void> {
    await this.browser.close().catch(() => undefined);
    rmSync(this.profile, { recursive: true, force: true });
  }
}

/**
 * Firefox ESR over WebDriver BiDi. Three things differ from Chromium, all test-side:
 * - BiDi refuses to navigate to moz-extension:// ("Navigation to … is not allowed in this
 *   context") unless Firefox runs with `--remote-allow-system-access`; and Puppeteer's `goto` then
 *   never sees the navigation events (it times out although the page loaded), so pages are opened
 *   with the BiDi `browsingContext.navigate` command directly, waiting for "complete".
 * - The extension's origin is `moz-extension://<uuid>/` with a per-profile random UUID: the
 *   `extensions.webextensions.uuids` pref pins it for the gecko id.
 * - The MV3 background is an event page, not a worker target: its globals are read from an
 *   extension page through `browser.runtime.getBackgroundPage()`.
 */
export class FirefoxTestBrowser implements ExtensionBrowser {
  readonly kind = "firefox";
  readonly noHostMessage = "No such native application dev.vigil.host";
  #probe: Page | null = null;

  private constructor(
    readonly browser: Browser,
    readonly profile: string,
    /** The HOME Firefox runs with (its ~/.mozilla/native-messaging-hosts/ is the test's). */
    readonly home: string,
  ) {}

  /**
   * `install(home)` runs before launch (e.g. `HOME=home vigil install --browser firefox`);
   * `extensionDir` is the unpacked extension loaded (the checkout's build unless told).
   */
  static async launch(
    install?: (home: string) => Promise<void>,
    extensionDir = FIREFOX_EXTENSION_DIR,
  ): Promise<FirefoxTestBrowser> {
    const profile = mkdtempSync(join(tmpdir(), "vigil-firefox-"));
    const home = mkdtempSync(join(tmpdir(), "vigil-firefox-home-"));
    mkdirSync(join(home, ".mozilla"), { recursive: true });
    if (install) await install(home);
    const browser = await puppeteer.launch({
      browser: "firefox",
      executablePath: findFirefox(),
      headless: true,
      userDataDir: profile,
      args: ["--remote-allow-system-access"],
      env: { ...process.env, HOME: home } as Record<string, string>,
      extraPrefsFirefox: {
        "extensions.webextensions.uuids": JSON.stringify({ [GECKO_ID]: FIREFOX_UUID }),
      },
    });
    const self = new FirefoxTestBrowser(browser, profile, home);
    try {
      const id = await browser.installExtension(extensionDir);
      if (id !== GECKO_ID) throw new Error(`Expected extension id ${GECKO_ID} (the gecko id), got ${id}`);
      await waitFor(() => self.#background("!!bg && 'vigil' in bg"), { what: "the background page's globals" });
    } catch (error) {
      await self.close();
      throw error;
    }
    return self;
  }

  /** Opens an extension page of this profile's Vigil in a new tab. */
  async #open(url: string): Promise<Page> {
    const page = await this.browser.newPage();
    // Puppeteer's goto waits for navigation events Firefox does not send for moz-extension://.
    await (page.mainFrame() as any).browsingContext.navigate(url, "complete");
    return page;
  }

  /** Evaluates `expression` (with `bg`, the background page's window) in an extension page. */
  async #background<T>(expression: string): Promise<T> {
    if (!this.#probe || this.#probe.isClosed()) this.#probe = await this.#open(SIDEBAR_URL);
    return this.#probe.evaluate(
      `(async () => { const bg = await browser.runtime.getBackgroundPage(); return (${expression}); })()`,
    ) as Promise<T>;
  }

  linkStatus(): Promise<string> {
    return this.#background("bg.vigil.host.state.status");
  }

  isMarked(tabId: number): Promise<boolean> {
    return this.#background(`bg.vigil.marks.marked.has(${Number(tabId)})`);
  }

  background<T>(expression: string): Promise<T> {
    return this.#background(`await (async (vigil) => (${expression}))(bg.vigil)`);
  }

  panel(): Promise<Page> {
    return this.#open(SIDEBAR_URL);
  }

  /**
   * Puppeteer emulates media features over CDP only; Firefox's WebDriver BiDi has no command for it.
   * With `--remote-allow-system-access` (given at launch) BiDi evaluates in the browser's own
   * window, where the pref Firefox's settings page sets ("website appearance") is set the same way.
   */
  async colorScheme(page: Page, scheme: "light" | "dark"): Promise<void> {
    const session = (page.mainFrame() as any).browsingContext.userContext.browser.session;
    const tree = await session.send("browsingContext.getTree", { "moz:scope": "chrome" });
    const chrome = tree.result.contexts[0]?.context;
    if (!chrome) throw new Error("Expected Firefox's browser window among the chrome contexts, found none");
    const value = scheme === "dark" ? 0 : 1;
    await session.send("script.evaluate", {
      expression: `Services.prefs.setIntPref("layout.css.prefers-color-scheme.content-override", ${value})`,
      target: { context: chrome },
      awaitPromise: false,
    });
    // The pref reaches the page's process a moment later (a busy machine: longer): asked until it has.
    const deadline = Date.now() + 10_000;
    while (!(await page.evaluate(`matchMedia("(prefers-color-scheme: ${scheme})").matches`))) {
      if (Date.now() > deadline) {
        throw new Error(`Expected the page to see prefers-color-scheme: ${scheme} within 10 s of setting the pref`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async reloadPanel(page: Page): Promise<void> {
    // page.reload() waits for the same missing navigation events: reload from inside, then wait
    // for a new document (the old one's marker gone) that has finished loading.
    await page.evaluate("window.vigilOldDocument = true; location.reload()");
    await waitFor(() => page.evaluate('!window.vigilOldDocument && document.readyState === "complete"'), {
      what: "the sidebar reloaded",
    });
  }

  async close(): Promise<void> {
    await this.browser.close().catch(() => undefined);
    rmSync(this.profile, { recursive: true, force: true });
    rmSync(this.home, { recursive: true, force: true });
  }
}

/**
 * Launches `kind` with the extension; with `daemon`, first installs the native host for it with the
 * real `vigil install` (so the manifest the browser reads is the one users get).
 */
export async function launchExtensionBrowser(kind: BrowserKind, daemon?: TestDaemon): Promise<ExtensionBrowser> {
  if (kind === "chromium")
    return TestBrowser.launch(
      daemon &&
        (async (profile) => {
          const installed = await daemon.cli(["install", "--browser", "chromium", "--user-data-dir", profile]);
          if (installed.exitCode !== 0) throw new Error(`vigil install failed: ${String(installed.stderr)}`);
        }),
    );
  return FirefoxTestBrowser.launch(
    daemon &&
      (async (home) => {
        const installed = await execa(process.execPath, [BIN, "install", "--browser", "firefox"], {
          env: { ...daemon.env, VIGIL_HOME: daemon.home, HOME: home },
          reject: false,
        });
        if (installed.exitCode !== 0) throw new Error(`vigil install --browser firefox failed: ${installed.stderr}`);
      }),
  );
}

/**
 * Presses `key` in the panel until `done` (a page expression) holds. Keys reach only the tab in
 * front, and a headless Firefox may hand focus to it a moment after `bringToFront` resolves, so one
 * press can land nowhere; each try brings the tab to the front, focuses `focus` (when given), presses
 * once and waits up to 5 s. Fails, naming `what`, after 6 tries.
 */
export async function pressUntil(page: Page, key: "Escape" | "Enter", done: string, what: string, focus?: string) {
  let last: unknown;
  for (let attempt = 0; attempt < 6; attempt += 1) {
    await page.bringToFront();
    if (focus) await page.focus(focus);
    await page.keyboard.press(key);
    try {
      await page.waitForFunction(done, { polling: 100, timeout: 5_000 });
      return;
    } catch (error) {
      last = error;
    }
  }
  throw new Error(`${key} did not bring about ${what}: ${String(last)}`);
}
