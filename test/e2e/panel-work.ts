/**
 * The panel as the place a person works (issue #38 items 3–8, 10), on the dashboard's workload
 * (panel-dashboard.ts calls these between its own tests, with its panel open): the sticky top bar,
 * Needs you folding (remembered) and following the filters, one count everywhere, a search's
 * matches first. Screenshots at 400 and 700 px, light and dark, under test/e2e/artifacts/.
 */
import type { Page } from "puppeteer";
import { expect, test } from "vitest";
import type { ExtensionBrowser } from "../helpers/browser.js";
import type { TestDaemon } from "../helpers/daemon.js";
import type { Workload } from "./workload.js";

export interface PanelWorkContext {
  panel(): Page;
  workload(): Workload;
  daemon(): TestDaemon;
  browser(): ExtensionBrowser;
  /** Waits until `expression` is truthy in the panel. */
  until(expression: string, what: string): Promise<unknown>;
  click(selector: string): Promise<void>;
  /** Screenshots the panel at this width (900 px high) in light and dark; each also runs axe-core. */
  shots(name: string, width: number): Promise<void>;
}

/** The one "Needs you" number as each place shows it, and the entries shown. */
const COUNTS = `(() => {
  const q = (s) => document.querySelector(s);
  return {
    header: Number(q("#needs-count").textContent || "0"),
    section: Number(q("section.needs").dataset.count),
    heading: q("#needs-title").textContent,
    tab: Number(q('[data-tab="needs"] .count').textContent),
    title: document.title,
    entries: [...document.querySelectorAll(".needs li[data-attention]")].map((li) => li.dataset.attention),
  };
})()`;
type Counts = { header: number; section: number; heading: string; tab: number; title: string; entries: string[] };

/** Types into the search box as a person does (the panel asks the daemon after a pause). */
async function search(panel: Page, text: string): Promise<void> {
  await panel.$eval(
    'input[data-filter="q"]',
    (e, value) => {
      (e as any).value = value;
      e.dispatchEvent(new (globalThis as any).Event("input", { bubbles: true }));
    },
    text,
  );
}

export function definePanelWorkTests(ctx: PanelWorkContext): void {
  const counts = () => ctx.panel().evaluate(COUNTS) as Promise<Counts>;
  const expectOneNumber = (c: Counts) => {
    expect(c.section).toBe(c.header);
    expect(c.tab).toBe(c.header);
    expect(c.heading).toBe(`Needs you (${c.header})`);
    expect(c.title).toBe(c.header ? `(${c.header}) Vigil` : "Vigil");
  };

  test("a sticky bar of search and filters; Needs you follows them with one count everywhere; a search shows its matches first", async () => {
    const panel = ctx.panel();
    const { ci, deploy } = ctx.workload().sessions;
    await panel.setViewport({ width: 400, height: 900 });
    const all = await counts();
    expect(all.header).toBeGreaterThan(2);
    expectOneNumber(all);

    // Scrolled to the bottom, the search box is still at the top of the view.
    await panel.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)");
    const bar = await panel.$eval('input[data-filter="q"]', (e) => {
      const r = e.getBoundingClientRect();
      return { top: r.top, scrolled: (globalThis as any).scrollY as number };
    });
    expect(bar.scrolled).toBeGreaterThan(0);
    expect(bar.top).toBeGreaterThanOrEqual(0);
    expect(bar.top).toBeLessThan(150);

    // A session filter: Needs you lists that session's entries only, and every count says so.
    await panel.select('select[data-filter="session"]', ci);
    await ctx.until(
      `(() => { const c = ${COUNTS}; return c.entries.length > 0 && c.entries.every((k) => k.split(":")[1] === ${JSON.stringify(ci)}) && c.section < ${all.header}; })()`,
      "Needs you holding the CI agent's entries alone",
    );
    const mine = await counts();
    expectOneNumber(mine);
    expect(mine.entries.length).toBe(mine.header);
    await ctx.shots("needs-session-filter", 400);
    await ctx.shots("needs-session-filter-700", 700);
    await panel.select('select[data-filter="session"]', "");
    await ctx.until(`${COUNTS}.section === ${all.header}`, "every entry again");

    // A search: its matches first, in view, above Needs you (which follows it too: nothing of the
    // deploy bot's cancelled canary needs the person).
    // Typed while scrolled down: the matches come to the top, in view.
    await panel.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)");
    await search(panel, "canary");
    await ctx.until(
      `[...document.querySelectorAll("li.monitor .name")].map((e) => e.textContent).join() === "Old canary"`,
      "the search's one match",
    );
    const order = await panel.$eval(`[data-session="${deploy}"] li.monitor`, (row) => {
      const needs = (globalThis as any).document.querySelector("section.needs");
      const r = row.getBoundingClientRect();
      return {
        before: Boolean(row.compareDocumentPosition(needs) & 4),
        top: r.top,
        height: (globalThis as any).innerHeight as number,
      };
    });
    expect(order.before).toBe(true);
    expect(order.top).toBeGreaterThan(0);
    expect(order.top).toBeLessThan(order.height);
    const searched = await counts();
    expectOneNumber(searched);
    expect(searched.header).toBe(0);
    await ctx.shots("search-first", 400);
    await search(panel, "");
    await ctx.until(`${COUNTS}.section === ${all.header}`, "every entry after the search");
  });

  test("Needs you folds to its heading, remembered when the panel opens again", async () => {
    const panel = ctx.panel();
    await ctx.click('[data-action="needs-fold"]');
    await ctx.until(
      `document.querySelector('[data-action="needs-fold"]').getAttribute("aria-expanded") === "false" && !document.querySelector(".needs li[data-attention]")`,
      "Needs you folded",
    );
    // Folded, its number still shows (the heading), the same as the header's.
    expectOneNumber(await counts());
    await ctx.shots("needs-folded", 400);
    await ctx.browser().reloadPanel(panel);
    await panel.waitForSelector('[data-action="needs-fold"][aria-expanded="false"]');
    expect(await panel.$(".needs li[data-attention]")).toBeNull();
    await ctx.click('[data-action="needs-fold"]');
    await panel.waitForSelector(".needs li[data-attention]");
    expect(await panel.evaluate("localStorage.getItem('vigil.needs-collapsed')")).toBe("false");
  });
}
