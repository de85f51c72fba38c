/**
 * The extension in a real browser (Debian's Chromium or Firefox ESR, driven by Puppeteer) talking
 * over native messaging to the real `vigil native-host` and daemon: observe exact tabs, the side
 * panel's (Firefox: sidebar's) controls, the disconnected states. Screenshots of the panel go to
 * test/e2e/artifacts/. extension.test.ts runs it in Chromium, firefox.test.ts in Firefox.
 */
import { mkdirSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Page } from "puppeteer";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type BrowserKind, type ExtensionBrowser, launchExtensionBrowser, pressUntil } from "../helpers/browser.js";
import { TestDaemon, waitFor } from "../helpers/daemon.js";
import { defineCauseTests } from "./panel-cause.js";
import { defineDashboardTests, PANEL_DUMP } from "./panel-dashboard.js";
import { defineNotifyTests } from "./panel-notify.js";
import { defineTimeTests } from "./panel-time.js";

const ARTIFACTS = join(import.meta.dirname, "artifacts");

/**
 * The suite, for one browser. Screenshots: side-panel-*.png (Chromium, names kept from before),
 * firefox-sidebar-*.png (Firefox).
 */
export function defineExtensionSuite(kind: BrowserKind): void {
  mkdirSync(ARTIFACTS, { recursive: true });
  const shot = (name: string) =>
    join(ARTIFACTS, kind === "chromium" ? `side-panel-${name}.png` : `firefox-sidebar-${name}.png`);

  let daemon: TestDaemon;
  let browser: ExtensionBrowser;
  let site: Server;
  /** The same CI app on 127.0.0.2, a host outside the extension's host_permissions. */
  let elsewhere: Server;
  let origin = "";
  let otherOrigin = "";
  const ci = { redirect: false };

  beforeAll(async () => {
    const app = (req: IncomingMessage, res: ServerResponse) => {
      if (req.url === "/ci/run/42" && ci.redirect) {
        res.writeHead(302, { location: "/login" }).end();
        return;
      }
      const body =
        req.url === "/login"
          ? "<title>Sign in</title><form>Sign in to CI</form>"
          : '<title>CI run 42</title><h1>Run 42</h1><div data-testid="run-status">Running</div>';
      res.writeHead(200, { "content-type": "text/html" }).end(`<!doctype html>${body}`);
    };
    site = createServer(app);
    elsewhere = createServer(app);
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    await new Promise<void>((resolve) => elsewhere.listen(0, "127.0.0.2", resolve));
    origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    otherOrigin = `http://127.0.0.2:${(elsewhere.address() as AddressInfo).port}`;
    // Notifications (panel-notify.ts) go out at once, and a failed one is tried again soon.
    daemon = await TestDaemon.start({
      env: { VIGIL_NOTIFY_GROUP_MS: "200", VIGIL_NOTIFY_PASS_MS: "200", VIGIL_NOTIFY_RETRY_BASE_MS: "1000" },
    });
    browser = await launchExtensionBrowser(kind, daemon);
    await waitFor(async () => (await browser.linkStatus()) === "connected", { what: "the extension connected" });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await daemon?.dispose();
    site?.close();
    elsewhere?.close();
  });

  async function openCiPage(base = origin): Promise<{ page: Page; tabId: number }> {
    const page = await browser.browser.newPage();
    await page.goto(`${base}/ci/run/42`);
    // The tab's id, as an agent finds it: GET /api/browser/tabs (served by the extension).
    const tabs = await daemon.api("GET", "/api/browser/tabs");
    expect(tabs.status).toBe(200);
    const mine = tabs.body.filter((t: any) => t.url === `${base}/ci/run/42`);
    const tab = mine.at(-1);
    expect(tab).toMatchObject({ title: "CI run 42", url: `${base}/ci/run/42` });
    return { page, tabId: tab.tabId };
  }

  const arm = async (
    session: string,
    tabId: number,
    name: string,
    { base = origin, selector = '[data-testid="run-status"]' } = {},
  ) => {
    const reply = await daemon.api("POST", `/api/sessions/${session}/monitors`, {
      name,
      source: {
        kind: "browser",
        tabId,
        url: `${base}/ci/run/42`,
        selector,
        condition: { path: "text", operator: "equals", value: "Succeeded" },
      },
      intervalSeconds: 0.5,
      timeoutSeconds: 120,
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body.id as string;
  };

  const checked = (session: string, id: string, count: number) =>
    waitFor(
      async () => {
        const view = await daemon.monitor(session, id);
        return view.polls >= count ? view : null;
      },
      { what: `${count} checks of ${id}` },
    );

  // First, so that its screenshots (docs/panel.md's) show its workload alone.
  defineDashboardTests({
    daemon: () => daemon,
    browser: () => browser,
    kind,
    shot,
    ciPage: async () => {
      const { tabId } = await openCiPage();
      return { url: `${origin}/ci/run/42`, tabId };
    },
  });

  defineCauseTests({ daemon: () => daemon, browser: () => browser, shot });

  defineNotifyTests({ daemon: () => daemon, browser: () => browser, shot });

  describe("observing an exact tab", () => {
    test("a browser monitor ends met after the page says Succeeded, its wake carrying the text", async () => {
      const session = await daemon.newSession("ci");
      const { page, tabId } = await openCiPage();
      const id = await arm(session, tabId, "CI run 42");
      const waiting = await checked(session, id, 2);
      expect(waiting).toMatchObject({ state: "waiting", lastError: null });
      expect(waiting.lastObservation).toMatchObject({ text: "Running", exists: true, title: "CI run 42" });
      // The tab is marked while a monitor reads it.
      await waitFor(() => browser.isMarked(tabId), { what: "the tab marked" });

      // The CI app updates its own page, as a real dashboard does.
      await page.evaluate(`document.querySelector('[data-testid="run-status"]').textContent = "Succeeded"`);
      const ended = await daemon.waitForState(session, id, ["ready", "finished"]);
      expect(ended.ending.reason).toBe("met");
      expect(ended.lastObservation).toEqual({
        text: "Succeeded",
        exists: true,
        url: `${origin}/ci/run/42`,
        title: "CI run 42",
      });
      const wakes = await daemon.api("GET", `/api/sessions/${session}/wakes`);
      expect(wakes.body).toHaveLength(1);
      expect(wakes.body[0].text).toContain("Succeeded");
      // The ended monitor leaves the tab open for the user, unmarked.
      await waitFor(async () => !(await browser.isMarked(tabId)), { what: "the mark removed" });
      expect(page.isClosed()).toBe(false);
      await page.close();
    });

    test("a redirect to /login records the URL it is on and keeps waiting; closing the tab records 'tab closed'", async () => {
      const session = await daemon.newSession("ci");
      const { page, tabId } = await openCiPage();
      const id = await arm(session, tabId, "CI run 42 (redirected)");
      await checked(session, id, 1);

      ci.redirect = true;
      await page.goto(`${origin}/ci/run/42`);
      ci.redirect = false;
      const redirected = await waitFor(async () => {
        const view = await daemon.monitor(session, id);
        return view.lastError?.startsWith("URL differs") ? view : null;
      });
      expect(redirected.state).toBe("waiting");
      expect(redirected.lastError).toContain(`is on ${origin}/login`);

      await page.close();
      const closed = await waitFor(async () => {
        const view = await daemon.monitor(session, id);
        return view.lastError?.startsWith("tab closed") ? view : null;
      });
      expect(closed.state).toBe("waiting");
      expect(closed.lastError).toContain(`tab ${tabId} no longer exists`);
      await daemon.api("POST", `/api/sessions/${session}/monitors/${id}/control`, { action: "cancel" });
    });
  });

  describe("observing: the element missing, a host without permission", () => {
    test("a selector matching nothing records 'element missing' and the monitor keeps waiting", async () => {
      const session = await daemon.newSession("ci");
      const { page, tabId } = await openCiPage();
      const id = await arm(session, tabId, "CI run 42 (no such element)", {
        selector: '[data-testid="deploy-status"]',
      });
      const view = await checked(session, id, 2);
      expect(view.state).toBe("waiting");
      expect(view.lastError).toBe(
        `element missing: nothing matches [data-testid="deploy-status"] on ${origin}/ci/run/42 (the page changed, or has not rendered it yet)`,
      );
      await daemon.api("POST", `/api/sessions/${session}/monitors/${id}/control`, { action: "cancel" });
      await page.close();
    });

    test("a page on a host outside host_permissions records 'no permission for HOST' and keeps waiting", async () => {
      const session = await daemon.newSession("ci");
      const { page, tabId } = await openCiPage(otherOrigin);
      const id = await arm(session, tabId, "CI run 42 (elsewhere)", { base: otherOrigin });
      const denied = await waitFor(async () => {
        const view = await daemon.monitor(session, id);
        return view.lastError?.startsWith("no permission") ? view : null;
      });
      expect(denied.state).toBe("waiting");
      expect(denied.lastError).toContain(`no permission for ${new URL(otherOrigin).host}`);
      // Where to allow it, in this browser's words.
      expect(denied.lastError).toContain(
        kind === "firefox" ? "about:addons → Vigil → Permissions" : "chrome://extensions → Vigil → Site access",
      );
      await daemon.api("POST", `/api/sessions/${session}/monitors/${id}/control`, { action: "cancel" });
      await page.close();
    });
  });

  describe("the side panel", () => {
    test("lists monitors and waitpoints (each once); Pause, Resume and Cancel change the daemon's state", async () => {
      const session = await daemon.newSession("agent");
      const { tabId } = await openCiPage();
      const id = await arm(session, tabId, "Deploy dashboard");
      const waitpoint = await daemon.api("POST", `/api/sessions/${session}/waitpoints`, {
        label: "train-arm2",
        intent: "Compare arm 2's eval loss with arm 1 and pick the better checkpoint",
        expires_in_hours: 3,
      });
      expect(waitpoint.status).toBe(201);

      const panel = await browser.panel();
      await panel.setViewport({ width: 420, height: 900 });
      const row = `[data-session="${session}"] [data-monitor="${id}"]`;
      await panel.waitForSelector(`${row}[data-state="waiting"]`);
      const wpRow = `[data-session="${session}"] [data-monitor="${waitpoint.body.id}"]`;
      await panel.waitForSelector(wpRow);
      expect(await panel.$eval(`${wpRow} .details`, (e) => e.textContent)).toBe(
        "0/1 received · expires in 3h · 0 events",
      );
      expect(await panel.$eval(`${wpRow} .intent`, (e) => e.textContent)).toContain("Compare arm 2's eval loss");
      expect(
        await panel.$$eval(`[data-monitor="${waitpoint.body.id}"] [data-action="cancel"]`, (es) => es.length),
      ).toBe(1);

      // The check log answers "why has it not fired?": the page still says Running.
      await panel.click(`${row} [data-key$=":checks"]`);
      const log = `${row} ol.checks`;
      await panel.waitForFunction(`document.querySelector(${JSON.stringify(log)})?.textContent.includes("not met")`, {
        polling: 100,
      });
      expect(await panel.$eval(log, (e) => e.textContent)).toContain('"Running"');
      await panel.$eval(row, (e) => e.scrollIntoView({ block: "start" }));
      await panel.screenshot({ path: shot("check-log") });
      // Escape closes it, and focus stays on its button. Keys and animation frames reach only the
      // tab in front (Firefox's headless tabs in the background get neither): bring it there first.
      await pressUntil(
        panel,
        "Escape",
        `!document.querySelector(${JSON.stringify(log)})`,
        "the check log closed",
        `${row} [data-key$=":checks"]`,
      );

      await panel.click(`${row} [data-key$=":pause"]`);
      await daemon.waitForState(session, id, ["paused"]);
      await panel.waitForSelector(`${row}[data-state="paused"]`).catch(async (error) => {
        throw new Error(`${error.message}; the panel: ${await panel.evaluate(PANEL_DUMP)}`);
      });

      await panel.click(`${row} [data-key$=":resume"]`);
      await daemon.waitForState(session, id, ["waiting"]);
      await panel.waitForSelector(`${row}[data-state="waiting"]`);

      // Cancel asks first; "Keep" leaves it waiting.
      await panel.click(`${row} [data-key$=":cancel"]`);
      await panel.waitForSelector(`${row} [data-key$=":confirm"]`);
      await panel.click(`${row} [data-key$=":keep"]`);
      expect((await daemon.monitor(session, id)).state).toBe("waiting");
      await panel.click(`${row} [data-key$=":cancel"]`);
      await panel.click(`${row} [data-key$=":confirm"]`);
      await daemon.waitForState(session, id, ["cancelled"]);
      await panel.waitForSelector(`${row}[data-state="cancelled"]`);

      // Keyboard: focus survives a refresh; Enter on Cancel asks, Enter on Stop waiting disarms the waitpoint.
      await browser.reloadPanel(panel);
      await panel.waitForSelector(`${wpRow} [data-key$=":cancel"]`);
      await panel.focus(`${wpRow} [data-key$=":cancel"]`);
      // A change elsewhere refreshes the list: the focused button keeps focus.
      await daemon.api("POST", `/api/sessions/${session}/monitors`, {
        name: "a change",
        source: { kind: "time", at: new Date(Date.now() + 600_000).toISOString().replace(/\.\d+Z$/, "Z") },
      });
      await panel.waitForFunction(`[...document.querySelectorAll(".name")].some((e) => e.textContent === "a change")`, {
        polling: 100,
      });
      expect(await panel.evaluate("document.activeElement?.dataset.key")).toBe(
        `${session}/${waitpoint.body.id}:cancel`,
      );
      await panel.bringToFront();
      await panel.keyboard.press("Enter");
      await panel.waitForSelector(`${wpRow} [data-key$=":confirm"]`);
      await panel.click(`${wpRow} [data-key$=":confirm"]`);
      await waitFor(async () => {
        const view = await daemon.api("GET", `/api/sessions/${session}/waitpoints/${waitpoint.body.id}`);
        return view.body.state === "cancelled";
      });
      await panel.waitForSelector(`${wpRow}[data-tone="cancelled"]`);

      // The daemon dies: the panel says so; a restart reconnects without reloading anything.
      await daemon.kill9();
      await panel.waitForSelector('[data-testid="disconnected"][data-status="daemon_down"]');
      expect(await panel.$eval('[data-testid="disconnected"]', (e) => e.textContent)).toContain("vigil serve");
      await panel.screenshot({ path: shot("daemon-down") });
      await daemon.spawn();
      await panel.waitForSelector(`${row}[data-state="cancelled"]`, { timeout: 20_000 });
      expect(await panel.$('[data-testid="disconnected"]')).toBeNull();
      await panel.close();
    });

    test("when more checks are due than can run at once, Needs you says checks are running late", async () => {
      // 36 checks that each hold a slot: 32 run (the concurrency), the 4 armed last wait for a slot.
      const sessions = Array.from({ length: 9 }, (_, i) => `overload-${i}`);
      for (const sid of sessions) {
        expect((await daemon.api("POST", "/api/sessions", { id: sid })).status).toBe(201);
        for (let i = 0; i < 4; i++) {
          const reply = await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
            source: { kind: "command", command: "sleep 60" },
            intervalSeconds: 5,
            timeoutSeconds: 120,
          });
          expect(reply.status, JSON.stringify(reply.body)).toBe(201);
        }
      }
      try {
        await waitFor(
          async () => ((await daemon.api("GET", "/api/status")).body.checks.waitingForSlot >= 4 ? true : null),
          { what: "4 checks waiting for a slot" },
        );
        const panel = await browser.panel();
        await panel.setViewport({ width: 420, height: 900 });
        const entry = '.needs li[data-reason="overload"]';
        // The overload is the least urgent entry: with more than a few before it, it is behind "Show N more".
        const more = '.needs [data-action="needs-all"][aria-expanded="false"]';
        await panel.waitForSelector(`${entry}, ${more}`);
        if (await panel.$(more)) await panel.click(more);
        await panel.waitForSelector(entry);
        const text = await panel.$eval(`${entry} pre.cause`, (e) => e.textContent);
        // What the daemon said when the panel asked (checks waiting for a slot, or started late).
        expect(text).toMatch(
          /^Checks are running late — .*(waiting for a free slot \(32 run at once|started over 1 s late)/,
        );
        await panel.$eval(entry, (e) => e.scrollIntoView({ block: "start" }));
        await panel.screenshot({ path: shot("overload") });
        await panel.close();
      } finally {
        // The waiting ones first, so that none of them starts (late) when the others' slots free up.
        for (const sid of [...sessions].reverse()) await daemon.api("DELETE", `/api/sessions/${sid}`);
      }
    });
  });

  defineTimeTests(kind);

  test("without the native host installed, the panel says how to install it", async () => {
    const bare = await launchExtensionBrowser(kind);
    try {
      await waitFor(async () => (await bare.linkStatus()) === "no_host", { what: "no_host" });
      const panel = await bare.panel();
      await panel.waitForSelector('[data-testid="disconnected"][data-status="no_host"]');
      const text = await panel.$eval('[data-testid="disconnected"]', (e) => e.textContent);
      expect(text).toContain("npx vigil install");
      expect(text).toContain(bare.noHostMessage);
      await panel.screenshot({ path: shot("not-installed") });
    } finally {
      await bare.close();
    }
  });
}
