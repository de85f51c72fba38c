/**
 * The side panel as the place a person works (issue #26), on one realistic workload built once
 * (workload.ts): the "Needs you" section's order and count, the same count in the header, the page
 * title and the toolbar badge; Send again, Dismiss, bulk Pause / Resume / Cancel and Clear ended
 * changing the daemon's state; outcome colours; filters, search and folded sessions; axe-core with
 * no serious or critical violation; a notification and its click. Screenshots (light and dark,
 * 400 and 600 px) go to test/e2e/artifacts/ and, with VIGIL_UPDATE_IMAGES=1, over the guides' images in docs/images/.
 */
import { copyFileSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { Page } from "puppeteer";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { NEEDS_SHOWN } from "../../shared/panel-lists.js";
import { type ExtensionBrowser, pressUntil } from "../helpers/browser.js";
import { ROOT, type TestDaemon, waitFor } from "../helpers/daemon.js";
import { defineRowTests } from "./panel-rows.js";
import { defineActionTests, defineLayoutTests, type PanelWorkContext } from "./panel-work.js";
import { buildWorkload, type Workload } from "./workload.js";

/** Writes into a running daemon's SQLite file (WAL: the daemon keeps working meanwhile). */
function writeStore(daemon: TestDaemon, write: (db: Database.Database) => void): void {
  const db = new Database(join(daemon.home, "vigil.db"));
  try {
    db.pragma("busy_timeout = 5000");
    write(db);
  } finally {
    db.close();
  }
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const IMAGES = join(ROOT, "docs", "images");
/**
 * The docs' screenshots are tracked files: a run copies its shots over them only when asked
 * (`npm run screenshots` sets VIGIL_UPDATE_IMAGES=1), so a test run writes nothing tracked.
 */
const toDocsImage = (shot: string, name: string) => {
  if (process.env.VIGIL_UPDATE_IMAGES === "1") copyFileSync(shot, join(IMAGES, name));
};
/** What the panel's data layer is doing, for a failed wait's message. */
export const PANEL_DUMP =
  "JSON.stringify({ busy: vigil.busy(), pending: vigil.port.pending, reconnects: vigil.port.reconnects, fetches: vigil.fetches, error: vigil.state.error, failed: vigil.state.listFailed, errors: vigil.errors, link: vigil.state.link })";

/** axe-core's serious and critical violations on the panel as it is (loads axe first if need be). */
export async function axeViolations(panel: Page): Promise<unknown[]> {
  if (!(await panel.evaluate("typeof axe !== 'undefined'"))) await panel.evaluate(AXE_SOURCE);
  return (await panel.evaluate(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ') + ': ' + n.failureSummary) })))",
  )) as unknown[];
}

export interface DashboardContext {
  daemon(): TestDaemon;
  browser(): ExtensionBrowser;
  ciPage(): Promise<{ url: string; tabId: number }>;
  shot(name: string): string;
  kind: "chromium" | "firefox";
}

type Entry = { reason: string; name: string; key: string; rank: number };

export function defineDashboardTests(ctx: DashboardContext): void {
  describe("the panel as a dashboard (one realistic workload)", () => {
    let workload: Workload;
    let panel: Page;
    /** The notification the notification test clicked ("vigil:<entry>"). */
    let notified: string | undefined;
    const daemon = () => ctx.daemon();
    const row = (sid: string, role: string) => `[data-session="${sid}"] [data-monitor="${workload.ids[role]}"]`;
    const entries = (): Promise<Entry[]> =>
      panel.$$eval(".needs li[data-attention]", (items) =>
        items.map((li) => ({
          reason: (li as any).dataset.reason as string,
          name: li.querySelector(".name")?.textContent ?? "",
          key: (li as any).dataset.attention as string,
          rank: Number((li as any).dataset.rank),
        })),
      );
    /**
     * Waits until `expression` is truthy in the panel, polled from here: waitForFunction polls on
     * animation frames, which a headless tab in the background (Firefox) may not get.
     */
    const until = (expression: string, what: string) =>
      waitFor(async () => ((await panel.evaluate(expression)) ? true : null), { what }).catch(async (error) => {
        throw new Error(`${(error as Error).message}; the panel: ${await panel.evaluate(PANEL_DUMP)}`);
      });
    /**
     * Clicks `selector`, again if the panel redrew the element between finding and clicking it (a
     * change that just landed re-renders its row: puppeteer then reports it detached).
     */
    const click = async (selector: string) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await panel.click(selector);
        } catch (error) {
          if (attempt >= 5 || !/detached/i.test((error as Error).message)) throw error;
        }
      }
    };
    /** Evaluates in the background; Firefox's helper does it from a new tab, so the panel comes back to the front. */
    const background = async <T>(expression: string): Promise<T> => {
      const result = await ctx.browser().background<T>(expression);
      await panel.bringToFront();
      return result;
    };
    const badge = () =>
      panel.evaluate("((globalThis.browser ?? globalThis.chrome).action.getBadgeText({}))") as Promise<string>;
    const screenshot = async (name: string, width: number, dark: boolean, readme?: string) => {
      await panel.setViewport({ width, height: 900 });
      if (dark) await ctx.browser().colorScheme(panel, "dark");
      await panel.evaluate("window.scrollTo(0, 0)");
      const path = ctx.shot(name);
      await panel.screenshot({ path });
      if (readme) toDocsImage(path, readme);
      if (dark) await ctx.browser().colorScheme(panel, "light");
    };

    beforeAll(async () => {
      const ci = await ctx.ciPage();
      workload = await buildWorkload(daemon(), ci.url, ci.tabId);
      panel = await ctx.browser().panel();
      await panel.setViewport({ width: 400, height: 900 });
    }, 60_000);
    // The panel's tab in front: a background tab's timers and frames are throttled.
    beforeEach(() => panel.bringToFront());
    afterAll(async () => {
      await panel?.close();
      await workload?.close();
      // The tests after these find a quiet daemon: no workload checks competing for slots.
      for (const sid of Object.values(workload?.sessions ?? {})) await daemon().api("DELETE", `/api/sessions/${sid}`);
      await daemon().api("DELETE", "/api/devices/gpu1");
    });

    test("Needs you: the most urgent first, with the whole cause; the same N in the header, the title and the badge", async () => {
      const [first, second] = workload.reviewWakes;
      await panel.waitForSelector(`.needs li[data-attention*="${second}"]`);
      await panel.waitForSelector('.devices [data-device="gpu1"]');
      // Both failed waitpoints: the expired one, and the sweep, whose fail settles 3 s after it came.
      await panel.waitForFunction(
        "document.querySelectorAll('.needs li[data-reason=\"waitpoint_failed\"]').length === 2",
      );
      const list = await entries();
      // Ordered by urgency: the two wakes whose delivery failed for good (a webhook answered 400) first.
      expect(list.slice(0, 2).map((e) => e.reason)).toEqual(["delivery_failed", "delivery_failed"]);
      expect(
        list
          .slice(0, 2)
          .map((e) => e.name)
          .sort(),
      ).toEqual(["CI run 8812 green", "Release notes built"]);
      const ranks = list.map((e) => e.rank);
      expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
      expect(list).toContainEqual(expect.objectContaining({ reason: "device_error", name: "gpu1" }));
      // The device's own row: its state and why.
      const device = await panel.$eval('.devices [data-device="gpu1"]', (e) => ({
        title: e.getAttribute("title"),
        chip: e.querySelector(".chip")?.textContent,
        details: e.querySelector("[data-device-details]")?.textContent,
      }));
      expect(device.title).toMatch(/^gpu1 · (offline|error): .+/);
      expect(device.details).toBe("not collected yet · 0 files");
      expect(list).toContainEqual(expect.objectContaining({ reason: "waitpoint_failed", name: "eval-sweep" }));
      // Inline: the wake id and the whole error, with Send again and Dismiss named for the monitor.
      const review = `.needs li[data-attention*="${first}"]`;
      const text = await panel.$eval(review, (e) => e.textContent ?? "");
      expect(text).toContain(first);
      expect(text).toMatch(/POST http:\/\/127\.0\.0\.1:\d+\/hook answered 400/);
      const labels = await panel.$$eval(`${review} button`, (bs) => bs.map((b) => b.getAttribute("aria-label")));
      expect(labels).toEqual(
        expect.arrayContaining([expect.stringMatching(/^Send again (CI run 8812 green|Release notes built)$/)]),
      );
      expect(labels.some((l) => l?.startsWith("Dismiss "))).toBe(true);

      const n = list.length;
      expect(await panel.$eval("#needs-title", (e) => e.textContent)).toBe(`Needs you (${n})`);
      // One number (issue #38 item 7): the tab, the header and the section count the same entries;
      // when devices or the overload are among them, the section and the tab's title say so.
      const told = (await panel.evaluate(`(() => {
        const q = (s) => document.querySelector(s);
        return {
          entries: [...document.querySelectorAll(".needs li[data-attention]")].map((li) => li.dataset.reason),
          tab: Number(q('[data-tab="needs"] .count').textContent),
          tabLabel: q('[data-tab="needs"]').getAttribute("aria-label"),
          tally: q(".needs [data-tally]")?.textContent ?? null,
          header: q("#needs-count").getAttribute("title"),
        };
      })()`)) as { entries: string[]; tab: number; tabLabel: string; tally: string | null; header: string };
      const devices = told.entries.filter((r) => r === "device_error").length;
      const late = told.entries.includes("overload") ? " · checks running late" : "";
      expect(devices).toBe(1);
      expect(told.tab).toBe(told.entries.length);
      const made = `${told.entries.length - devices - (late ? 1 : 0)} monitors · 1 device${late}`;
      expect(told.tally).toBe(made);
      expect(told.tabLabel).toBe(`Needs you: ${told.entries.length}`);
      expect(told.header).toBe(`${told.entries.length} need you: ${made}`);
      expect(await panel.$eval("#needs-count", (e) => e.textContent)).toBe(String(n));
      expect(await panel.title()).toBe(`(${n}) Vigil`);
      await waitFor(async () => (await badge()) === String(n), { what: `the toolbar badge reading ${n}` });
      // The live regions: the short summary line, and the Undo toasts (empty until an action).
      expect(await panel.$$eval("[aria-live]", (es) => es.map((e) => e.id))).toEqual(["summary", "toasts"]);
      expect(await panel.$eval("#summary", (e) => e.textContent)).toMatch(
        new RegExp(
          `^${n} need(s)? you \\(\\d+ monitors, 1 device(, checks running late)?\\) · \\d+ active · \\d+ ended$`,
        ),
      );

      await screenshot("dashboard", 400, false, ctx.kind === "chromium" ? "side-panel.png" : "firefox-sidebar.png");
      await screenshot("dashboard-600", 600, false);
      await panel.setViewport({ width: 400, height: 900 });
      await panel.screenshot({ path: ctx.shot("dashboard-full"), fullPage: true });
      await screenshot("dashboard-dark", 400, true, ctx.kind === "chromium" ? "side-panel-dark.png" : undefined);
      await screenshot("dashboard-600-dark", 600, true);
      await panel.setViewport({ width: 400, height: 900 });
    });

    test("typography: body text at the browser's size, names clamped to two lines, absolute times on hover", async () => {
      const size = await panel.$eval(`${row(workload.sessions.docs, "long")} .name`, (e) => {
        const style = (globalThis as any).getComputedStyle(e);
        return {
          font: style.fontSize,
          lines: Math.round(e.getBoundingClientRect().height / Number.parseFloat(style.lineHeight)),
          title: e.getAttribute("title"),
        };
      });
      expect(size.font).toBe("16px");
      expect(size.lines).toBeLessThanOrEqual(2);
      expect(size.title).toBe(workload.longName);
      const time = await panel.$eval(`${row(workload.sessions.ci, "lint")} time`, (e) => e.getAttribute("title"));
      expect(time).toMatch(/\d{4}/);
      // Every control is named for what it acts on.
      expect(
        await panel.$eval(`${row(workload.sessions.ci, "lint")} [data-action="cancel"]`, (e) =>
          e.getAttribute("aria-label"),
        ),
      ).toBe("Cancel Lint on main");
    });

    test("outcome colours: met green, expired and failed red, cancelled grey, paused amber, waiting blue", async () => {
      const { ci, deploy, train } = workload.sessions;
      const tone = (sid: string, role: string) => panel.$eval(row(sid, role), (e) => (e as any).dataset.tone);
      await panel.waitForSelector(`${row(train, "expired")}:not([data-tone="waiting"])`);
      // The sweep's fail settles 3 s after it came (quorum 2): the panel hears of it by itself.
      await panel.waitForSelector(`${row(train, "sweep")}:not([data-tone="waiting"])`);
      expect(await tone(ci, "ciGreen")).toBe("met");
      expect(await tone(train, "expired")).toBe("failed");
      expect(await panel.$eval(`${row(train, "expired")} .chip`, (e) => e.textContent)).toBe("expired");
      expect(await tone(deploy, "canary")).toBe("cancelled");
      expect(await tone(deploy, "backup")).toBe("paused");
      expect(await tone(ci, "lint")).toBe("waiting");
      expect(await tone(train, "sweep")).toBe("failed");
      const colour = (sid: string, role: string) =>
        panel.$eval(`${row(sid, role)} .chip`, (e) => (globalThis as any).getComputedStyle(e).backgroundColor);
      const colours = await Promise.all([
        colour(ci, "ciGreen"),
        colour(train, "expired"),
        colour(deploy, "canary"),
        colour(deploy, "backup"),
        colour(ci, "lint"),
      ]);
      expect(new Set(colours).size).toBe(5);
      // The wake of a met monitor reads as a wake, not as the monitor's state.
      expect(await panel.$eval(`${row(ci, "ciGreen")} .delivery`, (e) => e.textContent)).toContain(
        "delivery needs review",
      );
      // A waitpoint on the unreachable device says so; each waitpoint is shown once.
      expect(await panel.$eval(`${row(train, "gpuJob")} .device-line`, (e) => e.textContent)).toMatch(
        /^waiting for its device gpu1 \((offline|error)\)$/,
      );
      expect(await panel.$$eval(`[data-monitor="${workload.ids.arm2}"]`, (es) => es.length)).toBe(1);
    });

    test("filters with counts, search, kind and device filters; a folded session stays folded", async () => {
      const count = (tab: string) => panel.$eval(`[data-tab="${tab}"] .count`, (e) => Number(e.textContent));
      const shown = () => panel.$$eval("li.monitor .name", (es) => es.map((e) => e.textContent));
      const all = await count("all");
      expect(all).toBeGreaterThanOrEqual(17);
      expect((await count("active")) + (await count("ended"))).toBe(all);

      await panel.click('[data-tab="needs"]');
      // The tab's number counts every entry in view; its rows are the monitors among them.
      const notMonitors = () =>
        panel.$$eval(
          ".needs li[data-attention]",
          (es) =>
            es.filter(
              (e) => !e.getAttribute("data-attention")?.split(":")[2] || (e as any).dataset.reason === "device_error",
            ).length,
        );
      await waitFor(async () => (await shown()).length === (await count("needs")) - (await notMonitors()), {
        what: "the Needs you tab",
      });
      expect(await shown()).toEqual(expect.arrayContaining(["CI run 8812 green", "Release notes built"]));
      expect(await shown()).not.toContain("Lint on main");
      await panel.click('[data-tab="all"]');

      await panel.type('input[data-filter="q"]', "canary");
      await waitFor(async () => JSON.stringify(await shown()) === JSON.stringify(["Old canary"]), { what: "search" });
      await panel.$eval('input[data-filter="q"]', (e) => {
        (e as any).value = "";
        e.dispatchEvent(new (globalThis as any).Event("input", { bubbles: true }));
      });
      await panel.select('select[data-filter="kind"]', "waitpoint");
      await waitFor(async () => (await shown()).length === 4, { what: "the four waitpoints" });
      await panel.select('select[data-filter="kind"]', "");
      await panel.select('select[data-filter="device"]', "gpu1");
      await waitFor(async () => JSON.stringify(await shown()) === JSON.stringify(["gpu1 fine-tune"]), {
        what: "device filter",
      });
      await panel.select('select[data-filter="device"]', "");
      await waitFor(async () => (await shown()).length === all, { what: "everything again" });

      // Fold the docs session: remembered after a reload.
      const docs = workload.sessions.docs;
      await panel.click(`[data-session="${docs}"] button.fold`);
      await panel.waitForSelector(`[data-session="${docs}"] button.fold[aria-expanded="false"]`);
      expect(await panel.$(`[data-session="${docs}"] li.monitor`)).toBeNull();
      await ctx.browser().reloadPanel(panel);
      await panel.waitForSelector(`[data-session="${docs}"] button.fold[aria-expanded="false"]`);
      await panel.click(`[data-session="${docs}"] button.fold`);
      await panel.waitForSelector(`[data-session="${docs}"] li.monitor`);
    });

    const work: PanelWorkContext = {
      panel: () => panel,
      workload: () => workload,
      daemon,
      browser: () => ctx.browser(),
      until,
      click: async (selector) => void (await click(selector)),
      shots: async (name, width) => {
        await panel.setViewport({ width, height: 900 });
        await panel.evaluate("window.scrollTo(0, 0)");
        await panel.screenshot({ path: ctx.shot(name) });
        expect(await axeViolations(panel)).toEqual([]);
        await ctx.browser().colorScheme(panel, "dark");
        try {
          await panel.screenshot({ path: ctx.shot(`${name}-dark`) });
          expect(await axeViolations(panel)).toEqual([]);
        } finally {
          await ctx.browser().colorScheme(panel, "light");
          await panel.setViewport({ width: 400, height: 900 });
        }
      },
      axe: () => axeViolations(panel),
      reopen: async () => {
        panel = await ctx.browser().panel();
        await panel.setViewport({ width: 400, height: 900 });
        return panel;
      },
      background,
    };
    defineLayoutTests(work);
    defineRowTests(work);

    test("axe-core finds no serious or critical violation (light and dark)", async () => {
      await panel.setViewport({ width: 400, height: 900 });
      const run = () => axeViolations(panel);
      expect(await run()).toEqual([]);
      await ctx.browser().colorScheme(panel, "dark");
      try {
        expect(await run()).toEqual([]);
      } finally {
        await ctx.browser().colorScheme(panel, "light");
      }
    });

    test("a notification for what newly needs the person, one per session; clicking it shows the entry", async () => {
      const ciTitle = "Vigil: CI agent needs you";
      const shown = await waitFor(
        async () => {
          const all =
            await background<Array<{ id: string; title: string; message: string; error?: string }>>(
              "vigil.attention.shown",
            );
          const ci = all.filter((n) => n.title === ciTitle);
          return ci.length > 0 ? { all, ci } : null;
        },
        { what: "a notification for the CI agent's session" },
      );
      // Two deliveries failed within the minute: one notification tells of both.
      expect(shown.ci).toHaveLength(1);
      expect(shown.ci[0]?.error).toBeUndefined();
      expect(shown.ci[0]?.message).toMatch(/^(CI run 8812 green|Release notes built): delivery failed \(and 1 more\)$/);
      // Clicking it opens the panel at that entry (this panel is open: it scrolls there and focuses it).
      const id = shown.ci[0]?.id as string;
      await background(`vigil.openAt(${JSON.stringify(id)})`);
      const key = id.slice("vigil:".length);
      await until(
        `document.activeElement?.getAttribute("data-attention") === ${JSON.stringify(key)}`,
        "the entry focused",
      );
      await panel.keyboard.press("Tab");
      notified = id;
    });

    test("with no panel open, clicking the notification opens the panel at its entry", async () => {
      expect(notified, "the notification test before this one clicked a notification").toBeDefined();
      const id = notified as string;
      const key = id.slice("vigil:".length);
      // With no panel open, the click opens one at the entry: the side panel when the browser
      // takes the click as a gesture, else (here: a click handler run from the test, no gesture)
      // the panel's page in a tab. Either is the panel page, focused on the entry and marked.
      const worker = ctx.browser();
      const before = await worker.background<number>("vigil.openPanels()");
      await panel.close();
      await waitFor(
        async () => ((await worker.background<number>("vigil.openPanels()")) === before - 1 ? true : null),
        { what: "the panel's port closed" },
      );
      const opened =
        ctx.kind === "chromium"
          ? worker.browser.waitForTarget((t) => t.type() === "page" && t.url().includes("/sidepanel.html"))
          : null;
      // Firefox's suite reaches the background only from an extension page of its own, a sidebar
      // page too, whose port counts as an open panel: the background forgets that port (as if its
      // page had closed: no more pushes reach it) in the same turn as the click.
      const drop = ctx.kind === "chromium" ? "" : "vigil.panels.clear(), ";
      await worker.background(`(${drop}vigil.openAt(${JSON.stringify(id)}))`);
      // Firefox: Puppeteer neither reports a tab the extension opened as a new target nor knows a
      // moz-extension page's URL (about:blank to it): ask each page where it is.
      panel =
        ctx.kind === "chromium"
          ? ((await (await opened)?.page()) as Page)
          : await waitFor(
              async () => {
                for (const page of await worker.browser.pages()) {
                  const href = await page.evaluate("location.href").catch(() => "");
                  if (String(href).includes("/sidepanel.html#focus=")) return page;
                }
                return null;
              },
              { what: "the panel's page opened in a tab" },
            );
      await panel.setViewport({ width: 400, height: 900 });
      await until(
        `document.activeElement?.getAttribute("data-attention") === ${JSON.stringify(key)} && document.activeElement.dataset.focused === "true"`,
        "the entry focused in the panel the click opened",
      );
      const box = await panel.$eval(`li[data-attention="${key}"]`, (e) => {
        const r = e.getBoundingClientRect();
        return { top: r.top, bottom: r.bottom, height: (globalThis as any).innerHeight as number };
      });
      // At the top (scrolled there: sub-pixel layout may leave it a fraction of a pixel above).
      expect(box.top).toBeGreaterThan(-1);
      expect(box.top).toBeLessThan(box.height);
    });

    /** Checks the docs writer's polled monitors recorded since `since` (each changes its session). */
    const docsChecksSince = async (since: number): Promise<number> => {
      let count = 0;
      for (const role of ["long", "http", "browser", "pr"]) {
        const reply = await daemon().api(
          "GET",
          `/api/sessions/${workload.sessions.docs}/monitors/${workload.ids[role]}/checks`,
        );
        count += (reply.body as Array<{ at: string }>).filter((check) => Date.parse(check.at) >= since).length;
      }
      return count;
    };

    test("Send again, Dismiss, bulk Pause / Resume / Cancel and Clear ended change the daemon's state", async () => {
      const d = daemon();
      const { ci, deploy } = workload.sessions;
      const [first, second] = workload.reviewWakes as [string, string];
      const wake = async (wid: string) => (await d.api("GET", `/api/sessions/${ci}/wakes/${wid}`)).body;
      const before = workload.hookRequests();
      // The background fetches browser monitors only for the sessions that have one (here: docs).
      // The docs writer's own checks (every 30 s) change its session and may fetch them: counted.
      const windowStart = Date.now();
      const marksFetches = await background<number>("vigil.fetches.marks");
      await click(`.needs li[data-attention*="${first}"] [data-action="needs-retry"]`);
      // Sent again: the webhook gets it once more (and refuses it again, so it needs review again).
      await waitFor(() => workload.hookRequests() > before, { what: "the wake sent again" });
      await waitFor(async () => ((await wake(first)).state === "needs_review" ? true : null), { what: "review again" });
      // Send again's toast follows the wake to its outcome (issue #38 item 6): failed again, and why.
      await until(
        `document.querySelector('.toast[data-resend$="/${first}"]')?.dataset.phase === "failed"`,
        "the toast saying it failed again",
      );
      expect(await panel.$eval(`.toast[data-resend$="/${first}"]`, (e) => e.textContent)).toMatch(
        new RegExp(`^${first} of .+ failed again: POST http://127\\.0\\.0\\.1:\\d+/hook answered 400`),
      );
      expect(await panel.$('[data-testid="error"]')).toBeNull();

      await click(`.needs li[data-attention*="${second}"] [data-action="needs-dismiss"]`);
      await until(`!document.querySelector('.needs li[data-attention*="${second}"]')`, "the dismissed entry gone");
      // Sent once its Undo time is up (lib/held-actions.ts).
      const dismissed = await waitFor(async () => ((await wake(second)).state === "cancelled" ? wake(second) : null), {
        what: "the dismissal sent",
      });
      expect(dismissed.state).toBe("cancelled");
      expect(dismissed.dismissedAt).toEqual(expect.any(String));

      // Two changes in the CI agent's session, which has no browser monitor: the marks were not
      // fetched for them — at most once for each check the docs writer's session recorded meanwhile
      // (from 2 s before: a fetch follows its change by 200 ms and a request).
      const fetched = (await background<number>("vigil.fetches.marks")) - marksFetches;
      expect(fetched).toBeLessThanOrEqual(await docsChecksSince(windowStart - 2000));

      // Bulk: select three, pause them, resume them, cancel two with one confirmation.
      const roles = ["lint", "flaky", "long"];
      const sids: Record<string, string> = { lint: ci, flaky: deploy, long: workload.sessions.docs };
      const waiting: string[] = [];
      for (const role of roles) {
        const view = await d.monitor(sids[role] as string, workload.ids[role] as string);
        if (view.state === "waiting") waiting.push(role);
      }
      expect(waiting.length).toBeGreaterThanOrEqual(2);
      // One at a time: the bar that the first selection shows moves the rows below it, and a mouse
      // click that lands while a change notice redraws the list can miss (Firefox): each box is
      // clicked where it is now, then counted.
      for (const [n, role] of waiting.entries()) {
        await panel.$eval(`${row(sids[role] as string, role)} input.select`, (box) => (box as any).click());
        await until(`document.querySelector(".bulk span")?.textContent === "${n + 1} selected"`, `${n + 1} selected`);
      }
      await panel.click('[data-action="bulk-pause"]');
      for (const role of waiting) await d.waitForState(sids[role] as string, workload.ids[role] as string, ["paused"]);
      await until(
        `!!document.querySelector(${JSON.stringify(`${row(ci, "lint")}[data-state="paused"]`)})`,
        "lint paused",
      );
      await panel.click('[data-action="bulk-resume"]');
      for (const role of waiting) await d.waitForState(sids[role] as string, workload.ids[role] as string, ["waiting"]);
      await until(
        `!!document.querySelector(${JSON.stringify(`${row(ci, "lint")}[data-state="waiting"]`)})`,
        "lint waiting",
      );
      await panel.click('[data-action="bulk-cancel"]');
      await panel.waitForSelector('[data-action="bulk-confirm"]');
      // Escape backs out of the confirmation, like Keep.
      await pressUntil(panel, "Escape", `!!document.querySelector('[data-action="bulk-cancel"]')`, "Keep's effect");
      expect((await d.monitor(ci, workload.ids.lint as string)).state).toBe("waiting");
      await panel.click('[data-action="bulk-cancel"]');
      await panel.click('[data-action="bulk-confirm"]');
      for (const role of waiting)
        await d.waitForState(sids[role] as string, workload.ids[role] as string, ["cancelled"]);
      await until(`!document.querySelector(".bulk")`, "the bulk bar gone");

      // Clear ended: the deploy session's ended monitors leave the list.
      await panel.click(`[data-session="${deploy}"] [data-action="clear-ended"]`);
      await until(`!document.querySelector('${row(deploy, "canary")}')`, "the ended monitors cleared");
    });

    defineActionTests(work);

    test("Needs you shows the most urgent few; Show all unfolds the rest and folds them again", async () => {
      const d = daemon();
      // More expired waitpoints (each a second after arming) than NEEDS_SHOWN, whatever else needs the person.
      const sid = await d.newSession("nightly");
      const ids: string[] = [];
      for (let i = 0; i <= NEEDS_SHOWN; i++) {
        const made = await d.api("POST", `/api/sessions/${sid}/waitpoints`, {
          label: `nightly shard ${i}`,
          intent: "Merge the shard reports",
          expires_in_hours: 1 / 3600,
        });
        expect(made.status).toBe(201);
        ids.push(made.body.id);
      }
      for (const id of ids) await d.waitForState(sid, id, ["ready", "finished", "needs_review"]);
      // The first few shown, and a button for the rest.
      await until(
        `document.querySelectorAll("li.attention-item").length === ${NEEDS_SHOWN} && (() => { const b = document.querySelector('[data-action="needs-all"]'); return !!b && Number(document.querySelector("section.needs").dataset.count) >= ${NEEDS_SHOWN + 1}; })()`,
        "Needs you with its first few and Show all",
      );
      await panel.click('[data-action="needs-all"]');
      await until(
        `[...document.querySelectorAll("li.attention-item")].filter((e) => e.textContent.includes("nightly shard")).length === ${NEEDS_SHOWN + 1}`,
        "every nightly shard among the entries",
      );
      const entries = await panel.$$eval("li.attention-item", (es) => es.length);
      expect(await panel.$eval('[data-action="needs-all"]', (e) => e.getAttribute("aria-expanded"))).toBe("true");
      expect(await panel.$eval('[data-action="needs-all"]', (e) => e.textContent)).toBe("Show fewer");
      await panel.click('[data-action="needs-all"]');
      await until(`document.querySelectorAll("li.attention-item").length === ${NEEDS_SHOWN}`, "the few again");
      expect(await panel.$eval('[data-action="needs-all"]', (e) => e.textContent)).toBe(
        `Show ${entries - NEEDS_SHOWN} more`,
      );
      await panel.$eval('[data-action="needs-all"]', (e) => e.scrollIntoView({ block: "center" }));
      await panel.screenshot({ path: ctx.shot("needs-few") });
      for (const id of ids) await d.api("POST", `/api/sessions/${sid}/monitors/${id}/control`, { action: "cancel" });
    });

    test("team mode: a session on a stopped host says so, its machine's check reads 'waiting for their host', and the host filter keeps that host's sessions", async () => {
      const d = daemon();
      // Team mode runs on PostgreSQL (test/postgres/team.test.ts drives three daemons and reads these
      // views from the API). The panel draws the same page from either store, so a second host's rows
      // written into this daemon's SQLite file show it here, in both browsers: a CI runner that stopped
      // twenty minutes ago, and the session its agent runs in.
      const stoppedAt = Date.now() - 20 * 60_000;
      const sid = await d.newSession("release-train");
      await d.api("PATCH", `/api/sessions/${sid}`, { label: "release train (CI runner)" });
      try {
        // Armed through this daemon while the session is still its own (a write about a session is
        // its host's alone, design §8); then moved to the runner, as if the runner had armed them.
        const built = await d.api("POST", `/api/sessions/${sid}/monitors`, {
          name: "Release build on the runner",
          source: { kind: "command", command: "make release-check" },
          intervalSeconds: 60,
        });
        expect(built.status).toBe(201);
        const approval = await d.api("POST", `/api/sessions/${sid}/waitpoints`, {
          label: "release approval",
          intent: "Ship once the release manager approves",
        });
        expect(approval.status).toBe(201);
        writeStore(d, (db) => {
          db.prepare(
            "INSERT INTO hosts (id, name, version, pid, started_at, heartbeat_at, stopped_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
          ).run("h_ci_runner_3", "ci-runner-3", "0.1.0", 4242, stoppedAt - 3_600_000, stoppedAt, stoppedAt);
          db.prepare("UPDATE sessions SET host_id = ? WHERE id = ?").run("h_ci_runner_3", sid);
          db.prepare(
            "UPDATE triggers SET host_id = ? WHERE host_id IS NOT NULL AND monitor_uid IN (SELECT uid FROM monitors WHERE session_id = ?)",
          ).run("h_ci_runner_3", sid);
        });

        const section = `[data-session="${sid}"]`;
        await panel.waitForSelector(`${section} .host-line`);
        expect(await panel.$eval(`${section} .session-head .host`, (e) => e.textContent)).toBe("on ci-runner-3");
        expect(await panel.$eval(`${section} .host-away`, (e) => e.textContent)).toMatch(
          /^host ci-runner-3 stopped 20m ago · its checks and wakes wait for it$/,
        );
        const lines = await panel.$$eval(`${section} li.monitor`, (rows) =>
          rows.map((li) => [
            li.querySelector(".name")?.textContent,
            li.querySelector(".host-line")?.textContent ?? null,
          ]),
        );
        // The command needs the runner's machine; a waitpoint is signalled through any host.
        expect(lines).toEqual(
          expect.arrayContaining([
            ["Release build on the runner", "waiting for their host (ci-runner-3, stopped 20m ago)"],
            ["release approval", null],
          ]),
        );
        // The host filter: this host's sessions are listed no more, the runner's alone.
        const hosts = await panel.$$eval('select[data-filter="host"] option', (os) => os.map((o) => o.textContent));
        expect(hosts).toHaveLength(3);
        expect(hosts).toEqual(
          expect.arrayContaining([
            "All hosts",
            "ci-runner-3 (stopped)",
            expect.stringMatching(/^\S+ \(this machine\)$/),
          ]),
        );
        await panel.select('select[data-filter="host"]', "ci-runner-3");
        await until(
          `[...document.querySelectorAll("section.session")].map((s) => s.dataset.session).join() === "${sid}"`,
          "only the runner's session",
        );
        await panel.setViewport({ width: 400, height: 900 });
        await panel.$eval(section, (e) => e.scrollIntoView({ block: "start" }));
        await panel.screenshot({ path: ctx.shot("team-host-away") });
        if (ctx.kind === "chromium") toDocsImage(ctx.shot("team-host-away"), "team-host-away.png");
        await ctx.browser().colorScheme(panel, "dark");
        try {
          await panel.screenshot({ path: ctx.shot("team-host-away-dark") });
          await panel.evaluate(AXE_SOURCE);
          const violations = await panel.evaluate(
            "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id))",
          );
          expect(violations).toEqual([]);
        } finally {
          await ctx.browser().colorScheme(panel, "light");
        }
        await panel.select('select[data-filter="host"]', "");
        await until(`document.querySelectorAll("section.session").length > 1`, "every host's sessions again");
      } finally {
        // Back to this host, whose daemon alone may delete it.
        writeStore(d, (db) =>
          db
            .prepare(
              "UPDATE sessions SET host_id = (SELECT id FROM hosts WHERE id != 'h_ci_runner_3' LIMIT 1) WHERE id = ?",
            )
            .run(sid),
        );
        expect((await d.api("DELETE", `/api/sessions/${sid}`)).status).toBeLessThan(300);
        writeStore(d, (db) => db.prepare("DELETE FROM hosts WHERE id = 'h_ci_runner_3'").run());
      }
    });
  });
}
