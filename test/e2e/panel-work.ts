/**
 * The panel as the place a person works (issue #38 items 3–8, 10), on the dashboard's workload
 * (panel-dashboard.ts calls these between its own tests, with its panel open): the sticky top bar,
 * Needs you folding (remembered) and following the filters, one count everywhere, a search's
 * matches first; Clear ended offering what it clears and saying why the rest stay; Undo. Screenshots at 400 and 700 px, light and dark, under test/e2e/artifacts/.
 */
import type { Page } from "puppeteer";
import { expect, test } from "vitest";
import type { ExtensionBrowser } from "../helpers/browser.js";
import { type TestDaemon, waitFor } from "../helpers/daemon.js";
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
  /** axe-core's serious and critical violations on the panel as it is. */
  axe(): Promise<unknown[]>;
  /** Opens a new panel page (after the test closed the last one); panel() returns it from then on. */
  reopen(): Promise<Page>;
  /** Evaluates in the background worker. */
  background<T>(expression: string): Promise<T>;
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
export async function search(panel: Page, text: string): Promise<void> {
  await panel.$eval(
    'input[data-filter="q"]',
    (e, value) => {
      (e as any).value = value;
      e.dispatchEvent(new (globalThis as any).Event("input", { bubbles: true }));
    },
    text,
  );
}

export function defineLayoutTests(ctx: PanelWorkContext): void {
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
    // What matched is marked; the row shows its id, with a Copy button for its `vigil show` command.
    const shown = await panel.$eval(`[data-session="${deploy}"] li.monitor`, (row) => ({
      mark: [...row.querySelectorAll(".name mark")].map((m) => m.textContent),
      id: row.querySelector(".id-line code")?.textContent,
      copy: (row.querySelector('[data-action="copy"]') as any)?.dataset.copy,
    }));
    const canary = ctx.workload().ids.canary as string;
    expect(shown).toEqual({ mark: ["canary"], id: canary, copy: `vigil show ${canary} --session ${deploy}` });
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

export function defineActionTests(ctx: PanelWorkContext): void {
  test("Clear ended offers what it will clear and says why the rest stay; its Undo takes it back", async () => {
    const panel = ctx.panel();
    const d = ctx.daemon();
    const { ci } = ctx.workload().sessions;
    const section = `[data-session="${ci}"]`;
    // The last test's actions sent (their toasts gone).
    await ctx.until(`!document.querySelector(".toast")`, "no toast left from before");
    // The CI agent's session holds a monitor whose wake still needs review: it stays, and says why.
    await ctx.until(`!!document.querySelector('${section} [data-action="clear-ended"]')`, "Clear ended offered");
    const offer = await panel.$eval(`${section} .session-head`, (head) => ({
      count: Number((head.querySelector('[data-action="clear-ended"]') as any)?.dataset.count),
      label: head.querySelector('[data-action="clear-ended"]')?.textContent,
      stays: (head.nextElementSibling as any)?.dataset?.stays ?? null,
      note: head.nextElementSibling?.textContent ?? null,
    }));
    expect(offer.count).toBeGreaterThan(0);
    expect(offer.label).toBe(`Clear ended (${offer.count})`);
    expect(offer.stays).toBe("1");
    expect(offer.note).toBe("1 stays: its wake is not delivered yet");
    const listed = async () => (await d.api("GET", `/api/panel?session=${ci}&limit=500`)).body.items.length as number;
    const before = await listed();

    // Clear, then Undo from the keyboard (the toast's button has the focus): nothing was sent.
    await ctx.click(`${section} [data-action="clear-ended"]`);
    await ctx.until(`!!document.querySelector(".toast")`, "the toast");
    expect(await panel.$eval(".toast span", (e) => e.textContent)).toMatch(
      new RegExp(`^Cleared ${offer.count} ended monitors? from CI agent$`),
    );
    expect(await panel.evaluate("document.activeElement?.dataset.action")).toBe("undo");
    await waitFor(async () => ((await ctx.background<string[]>("vigil.held.keys()")).length === 1 ? true : null), {
      what: "the background to hold the clearing",
    });
    await panel.keyboard.press("Enter");
    await ctx.until(`!document.querySelector(".toast")`, "the toast gone after Undo");
    // The panel's Undo reaches the background as a message: it drops the action a moment later.
    await waitFor(async () => ((await ctx.background<string[]>("vigil.held.keys()")).length === 0 ? true : null), {
      what: "the background to drop the held action",
    });
    expect(await listed()).toBe(before);

    // Clear again and let it stand: the daemon clears exactly what was offered. The toast is a
    // polite live region, axe-clean (checked while it shows; it stays for the Undo time).
    await ctx.click(`${section} [data-action="clear-ended"]`);
    expect(await panel.$eval("#toasts", (e) => e.getAttribute("aria-live"))).toBe("polite");
    expect(await ctx.axe()).toEqual([]);
    await waitFor(async () => ((await listed()) === before - offer.count ? true : null), {
      what: `${offer.count} cleared by the daemon`,
    });
    expect(String((await d.cli(["clear-ended", "--session", ci])).stdout).trim()).toBe("nothing to clear");
    await ctx.until(`!document.querySelector(".toast")`, "the toast gone once sent");
  });

  test("Dismiss shows a toast whose Undo keeps the wake; a dismissal stands when the panel closes", async () => {
    let panel = ctx.panel();
    const d = ctx.daemon();
    const { ci } = ctx.workload().sessions;
    const [first] = ctx.workload().reviewWakes as [string];
    const wake = async () => (await d.api("GET", `/api/sessions/${ci}/wakes/${first}`)).body;
    const entry = `.needs li[data-attention*="${first}"]`;
    await panel.waitForSelector(entry);
    await ctx.until(`!document.querySelector(".toast")`, "no toast left from before");
    expect((await wake()).state).toBe("needs_review");

    await ctx.click(`${entry} [data-action="needs-dismiss"]`);
    await ctx.until(`!document.querySelector('${entry}') && !!document.querySelector(".toast")`, "hidden, toast");
    expect(await panel.$eval(".toast span", (e) => e.textContent)).toMatch(new RegExp(`^Dismissed ${first} of `));
    await waitFor(async () => ((await ctx.background<string[]>("vigil.held.keys()")).length === 1 ? true : null), {
      what: "the background to hold the dismissal",
    });
    await ctx.click('[data-action="undo"]');
    await ctx.until(`!!document.querySelector('${entry}')`, "the entry back after Undo");
    // The panel's Undo reaches the background as a message: it drops the action a moment later.
    await waitFor(async () => ((await ctx.background<string[]>("vigil.held.keys()")).length === 0 ? true : null), {
      what: "the background to drop the held action",
    });
    expect((await wake()).state).toBe("needs_review");

    // Dismissed, and the panel closed at once: the background sends it when the time is up.
    await ctx.click(`${entry} [data-action="needs-dismiss"]`);
    await ctx.until(`!!document.querySelector(".toast")`, "the toast");
    await ctx.shots("undo-toast", 400);
    await panel.close();
    await waitFor(async () => ((await wake()).state === "cancelled" ? true : null), {
      what: "the dismissal sent with the panel closed",
    });
    panel = await ctx.reopen();
    await panel.waitForSelector("section.needs");
    expect(await panel.$(entry)).toBeNull();
  });
}
