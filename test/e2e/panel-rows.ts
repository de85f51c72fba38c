/**
 * The panel's rows as a person works them (issue #38 items 10, 12–15) on the dashboard's workload:
 * a search finds what a row shows (a signal's message) with the match marked, and never what it
 * hides (a command); the keyboard reaches and works the entries. Screenshots go to test/e2e/artifacts/.
 */
import { expect, test } from "vitest";
import { type PanelWorkContext, search } from "./panel-work.js";

/** The monitors listed (their ids), in order. */
const LISTED = `[...document.querySelectorAll("li.monitor")].map((li) => li.dataset.monitor)`;

export function defineRowTests(ctx: PanelWorkContext): void {
  test("a search finds what rows show (a signal's message), marked; never a command no row shows", async () => {
    const panel = ctx.panel();
    const { ids } = ctx.workload();
    const sweep = ids.sweep as string;
    await search(panel, "cuda");
    await ctx.until(`JSON.stringify(${LISTED}) === ${JSON.stringify(JSON.stringify([sweep]))}`, "the sweep alone");
    const marks = await panel.$$eval(`li.monitor[data-monitor="${sweep}"] mark`, (all) =>
      all.map((m) => m.textContent),
    );
    expect(marks.length).toBeGreaterThan(0);
    expect(marks.every((m) => m === "CUDA")).toBe(true);
    await ctx.shots("search-signal", 400);
    await ctx.shots("search-signal-700", 700);
    // The watch's command ("sleep 600") is never shown on its row: nothing matches it.
    await search(panel, "sleep 600");
    await ctx.until(`${LISTED}.length === 0`, "no row for a command's text");
    await search(panel, "");
    await ctx.until(`${LISTED}.length > 5`, "every row after the search");
  });
}
