/**
 * The panel's rows as a person works them (issue #38 items 10, 12–15) on the dashboard's workload:
 * a search finds what a row shows (a signal's message) with the match marked, and never what it
 * hides (a command); the keyboard reaches and works the entries; a row at rest is one line, its
 * details and actions on expand; a met http__get row shows what its condition read (panel-http.ts).
 * Screenshots go to test/e2e/artifacts/.
 */
import { expect, test } from "vitest";
import { pressUntil } from "../helpers/browser.js";
import { defineHttpRowTest } from "./panel-http.js";
import { type PanelWorkContext, search } from "./panel-work.js";

/** What j / k move between (lib/panel-keys.ts NAVIGABLE), and the index of the focused one there. */
const NAVIGABLE = ".needs li[data-attention], li.monitor";
const FOCUSED_AT = `[...document.querySelectorAll(${JSON.stringify(NAVIGABLE)})].indexOf(document.activeElement)`;

/** The monitors listed (their ids), in order. */
const LISTED = `[...document.querySelectorAll("li.monitor")].map((li) => li.dataset.monitor)`;

/**
 * Each row at rest with its height and the bound one line allows: its padding and borders plus 1.5
 * times its name's line height (two lines would need 2).
 */
const REST_HEIGHTS = `[...document.querySelectorAll("li.monitor:not([data-expanded])")].map((li) => {
  const box = getComputedStyle(li);
  const name = getComputedStyle(li.querySelector(".head .name"));
  const line = name.lineHeight.endsWith("px") ? parseFloat(name.lineHeight) : parseFloat(name.lineHeight) * parseFloat(name.fontSize);
  const frame = ["paddingTop", "paddingBottom", "borderTopWidth", "borderBottomWidth"].reduce((sum, side) => sum + parseFloat(box[side]), 0);
  return { id: li.dataset.monitor, height: li.getBoundingClientRect().height, bound: frame + 1.5 * line, line };
})`;

/**
 * Each fact of a row at rest: whether it is drawn, its width and its font size. One too narrow to
 * read (a long name leaves it "c.") is not drawn at all (the panel's style sheet, a container query).
 */
const REST_FACTS = `[...document.querySelectorAll("li.monitor:not([data-expanded]) .head .fact > span")].map((s) => ({
  text: s.textContent,
  drawn: getComputedStyle(s).visibility === "visible",
  width: s.getBoundingClientRect().width,
  em: parseFloat(getComputedStyle(s).fontSize),
}))`;

export function defineRowTests(ctx: PanelWorkContext): void {
  test("at 400 px a row at rest is one line (name …, state, one fact, time); expanded, its details and actions show", async () => {
    const panel = ctx.panel();
    const { sessions, ids, longName } = ctx.workload();
    await ctx.until(`!document.querySelector(".toast")`, "no toast left from before");
    await panel.setViewport({ width: 400, height: 900 });
    await panel.select('select[data-filter="session"]', sessions.docs);
    const long = `li.monitor[data-monitor="${ids.long}"]`;
    await ctx.until(
      `!!document.querySelector('${long}') && [...document.querySelectorAll("li.monitor")].every((li) => li.closest("[data-session]")?.dataset.session === ${JSON.stringify(sessions.docs)})`,
      "the docs writer's rows alone",
    );
    try {
      const rows = (await panel.evaluate(REST_HEIGHTS)) as Array<{
        id: string;
        height: number;
        bound: number;
        line: number;
      }>;
      expect(rows.length).toBeGreaterThanOrEqual(6);
      for (const row of rows) {
        expect(row.line).toBeGreaterThan(10);
        expect(row.height, `row ${row.id}`).toBeLessThan(row.bound);
      }
      // A fact is drawn with room for a few words or not at all; a row with room shows its fact.
      const facts = (await panel.evaluate(REST_FACTS)) as Array<{
        text: string;
        drawn: boolean;
        width: number;
        em: number;
      }>;
      expect(facts.length).toBeGreaterThanOrEqual(2);
      for (const fact of facts.filter((f) => f.drawn)) expect(fact.width, fact.text).toBeGreaterThan(6 * fact.em);
      await panel.setViewport({ width: 700, height: 900 });
      await ctx.until(
        `${REST_FACTS}.some((f) => f.drawn && f.text.length > 0 && f.width > 6 * f.em)`,
        "a fact drawn at 700 px",
      );
      await panel.setViewport({ width: 400, height: 900 });
      // The long name ends in "…" on its one line, whole in its title, and stops before the chip.
      const name = await panel.$eval(long, (li) => {
        const n = li.querySelector(".head .name") as any;
        const chip = li.querySelector(".head .chip") as any;
        return {
          overflow: (globalThis as any).getComputedStyle(n).textOverflow,
          cut: n.scrollWidth > n.clientWidth,
          title: n.title,
          nameRight: n.getBoundingClientRect().right,
          chipLeft: chip.getBoundingClientRect().left,
          fact: li.querySelector(".head .fact")?.textContent,
        };
      });
      expect(name).toMatchObject({ overflow: "ellipsis", cut: true, title: longName });
      expect(name.nameRight).toBeLessThanOrEqual(name.chipLeft);
      // Its one fact: the failing check's exit code.
      expect(name.fact).toBe("exit 1");
      // The actions are not in the line's flow at rest; focus inside the row shows them (keyboard path).
      const actions = `${long} .actions`;
      const opacity = () => panel.$eval(actions, (e) => (globalThis as any).getComputedStyle(e).opacity);
      expect(await panel.$eval(actions, (e) => (globalThis as any).getComputedStyle(e).position)).toBe("absolute");
      await panel.mouse.move(0, 0);
      await panel.focus(`${long} [data-key$=":cancel"]`);
      await ctx.until(
        `getComputedStyle(document.querySelector('${actions}')).opacity === "1"`,
        "focus shows the actions",
      );
      await panel.$eval("input[data-filter='q']", (e) => (e as any).focus());
      expect(await opacity()).toBe("0");

      // Expanded (its name is the button), its details and actions show, in the flow.
      await ctx.click(`${long} button.expand`);
      await ctx.until(`!!document.querySelector('${long}[data-expanded]')`, "the row expanded");
      const open = await panel.$eval(long, (li) => {
        const style = (e: any) => (globalThis as any).getComputedStyle(e);
        return {
          expanded: li.querySelector("button.expand")?.getAttribute("aria-expanded"),
          body: style(li.querySelector(".body")).display,
          details: (li.querySelector(".details-line") as any).getBoundingClientRect().height,
          id: (li.querySelector(".id-line") as any).getBoundingClientRect().height,
          actions: style(li.querySelector(".actions")).position,
          opacity: style(li.querySelector(".actions")).opacity,
          kind: li.querySelector(".details-line .kind")?.textContent,
        };
      });
      expect(open).toMatchObject({ expanded: "true", actions: "static", opacity: "1", kind: "command" });
      expect(open.body).not.toBe("none");
      expect(open.details).toBeGreaterThan(0);
      expect(open.id).toBeGreaterThan(0);
      await ctx.shots("rows-dense", 400);
      await ctx.shots("rows-dense-700", 700);
      await ctx.click(`${long} button.expand`);
      await ctx.until(`!document.querySelector('${long}[data-expanded]')`, "the row folded again");
    } finally {
      await panel.select('select[data-filter="session"]', "");
    }
  });

  defineHttpRowTest(ctx);

  test("a search finds what rows show (a signal's message), marked; never a command no row shows", async () => {
    const panel = ctx.panel();
    const { ids } = ctx.workload();
    const sweep = ids.sweep as string;
    await panel.waitForSelector('input[data-filter="q"]');
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

  test("the keyboard: a skip link to the first entry, j / k, Enter, / for search, e and r on an entry", async () => {
    const panel = ctx.panel();
    const [, second] = ctx.workload().reviewWakes as [string, string];
    await ctx.until(`!document.querySelector(".toast")`, "no toast left from before");
    // Opened afresh, the panel's first tab stop is the skip link; Enter on it focuses the first
    // entry: two key presses.
    await ctx.browser().reloadPanel(panel);
    await panel.waitForSelector(NAVIGABLE);
    await panel.bringToFront();
    await panel.keyboard.press("Tab");
    await ctx.until(`document.activeElement?.id === "skip"`, "the skip link focused by the first Tab");
    await pressUntil(panel, "Enter", `${FOCUSED_AT} === 0`, "the first entry focused", "#skip");
    // j and k move in the order shown; k at the first stays there.
    await panel.keyboard.press("j");
    await ctx.until(`${FOCUSED_AT} === 1`, "j: the second");
    await panel.keyboard.press("j");
    await ctx.until(`${FOCUSED_AT} === 2`, "j: the third");
    await panel.keyboard.press("k");
    await ctx.until(`${FOCUSED_AT} === 1`, "k: the second again");
    // / focuses the search; typed there, j is text, not a move.
    await panel.keyboard.press("/");
    await ctx.until(`document.activeElement?.dataset.filter === "q"`, "/ focuses the search");
    await panel.keyboard.type("j");
    expect(await panel.$eval('input[data-filter="q"]', (e) => (e as any).value)).toBe("j");
    await search(panel, "");

    // Enter on a row opens its details (the row at rest is one line), Escape closes them.
    const sweep = `li.monitor[data-monitor="${ctx.workload().ids.sweep}"]`;
    await panel.focus(sweep);
    await panel.keyboard.press("Enter");
    await ctx.until(
      `!!document.querySelector('${sweep}[data-expanded] .body') && getComputedStyle(document.querySelector('${sweep} .body')).display !== "none"`,
      "Enter opened the details",
    );
    await pressUntil(panel, "Escape", `!document.querySelector('${sweep}[data-expanded]')`, "Escape closed them");

    // e on an entry dismisses it with the Undo toast, as its button does; Undo brings it back.
    const entry = `.needs li[data-attention*="${second}"]`;
    await panel.focus(entry);
    await panel.keyboard.press("e");
    await ctx.until(`!document.querySelector('${entry}') && !!document.querySelector(".toast")`, "e: hidden, toast");
    expect(await panel.$eval(".toast span", (e) => e.textContent)).toMatch(new RegExp(`^Dismissed ${second} of `));
    await ctx.click('[data-action="undo"]');
    await ctx.until(`!!document.querySelector('${entry}')`, "the entry back after Undo");
    // r sends it again, with the same feedback as Send again: sending, then failed again (the hook refuses).
    await panel.focus(entry);
    await panel.keyboard.press("r");
    await ctx.until(`!!document.querySelector('.toast[data-resend$="/${second}"]')`, "r: the Send again toast");
    await ctx.until(
      `document.querySelector('.toast[data-resend$="/${second}"]')?.dataset.phase === "failed"`,
      "r: failed again",
    );

    // Show focuses and marks the row it jumps to.
    const show = `.needs li[data-attention] [data-action="needs-open"]`;
    const target = await panel.$eval(show, (e) => (e as any).dataset.target as string);
    await ctx.click(show);
    await ctx.until(
      `document.activeElement?.matches("li.monitor, li.device") && getComputedStyle(document.activeElement).outlineStyle === "solid"`,
      `Show focused the row of ${target}, outlined`,
    );
    await ctx.shots("keyboard-show", 400);
  });

  test("colour says the outcome only: cause boxes and error lines are neutral, light and dark (amber entries carry no red box)", async () => {
    const panel = ctx.panel();
    await panel.waitForSelector(".needs li[data-attention] pre.cause, li.monitor .error");
    /** The boxes that say a cause, with how far their background is from grey (0: a grey). */
    const boxes = `[...document.querySelectorAll(".error, pre.cause, .badge[data-tone=danger]")].map((e) => {
      const [r, g, b, alpha = 1] = getComputedStyle(e).backgroundColor.match(/[\\d.]+/g).map(Number);
      return { text: e.textContent.slice(0, 40), chroma: alpha === 0 ? 0 : Math.max(r, g, b) - Math.min(r, g, b) };
    })`;
    for (const scheme of ["light", "dark"] as const) {
      await ctx.browser().colorScheme(panel, scheme);
      try {
        const shown = (await panel.evaluate(boxes)) as Array<{ text: string; chroma: number }>;
        expect(shown.length).toBeGreaterThan(2);
        expect(shown.filter((box) => box.chroma > 24)).toEqual([]);
        // The outcome keeps its colour: a failed entry's line is red, an amber entry's amber.
        const lines = (await panel.$$eval(".needs li[data-attention]", (all) =>
          all.map((li) => [(li as any).dataset.tone, (globalThis as any).getComputedStyle(li).borderLeftColor]),
        )) as Array<[string, string]>;
        const tones = new Map(lines);
        expect(tones.get("failed")).not.toBe(tones.get("paused"));
      } finally {
        await ctx.browser().colorScheme(panel, "light");
      }
    }
    await ctx.shots("neutral-causes", 400);
    await ctx.shots("neutral-causes-700", 700);
  });
}
