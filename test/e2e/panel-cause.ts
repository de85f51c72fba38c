/**
 * The cause, not the mechanism (issue #38 items 1, 2), in the real panel: a failed command's row
 * shows its exit code and last lines, and "Open output" opens the whole kept output as text (never
 * HTML); a failed waitpoint's Needs-you entry leads with its fail message, labelled "failed", its
 * primary action first. Screenshots go to test/e2e/artifacts/ only.
 */
import type { Page } from "puppeteer";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ExtensionBrowser } from "../helpers/browser.js";
import { type TestDaemon, waitFor } from "../helpers/daemon.js";
import { PANEL_DUMP } from "./panel-dashboard.js";

export interface CauseContext {
  daemon(): TestDaemon;
  browser(): ExtensionBrowser;
  shot(name: string): string;
}

/** 250 numbered lines, one with markup, then exit 2: the row shows the last 20, the output the last 200. */
const NOISY = `i=1; while [ $i -le 250 ]; do echo "step $i"; i=$((i+1)); done; echo '<b id="injected">2 tests failed</b>'; exit 2`;

export function defineCauseTests(ctx: CauseContext): void {
  describe("the cause first: output and headlines (#38)", () => {
    let panel: Page;
    let sid = "";
    let command = "";
    let waitpoint = "";
    const until = (expression: string, what: string) =>
      waitFor(async () => ((await panel.evaluate(expression)) ? true : null), { what }).catch(async (error) => {
        throw new Error(`${(error as Error).message}; the panel: ${await panel.evaluate(PANEL_DUMP)}`);
      });

    beforeAll(async () => {
      const daemon = ctx.daemon();
      sid = await daemon.newSession("cause");
      const made = await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
        name: "npm test",
        source: { kind: "command", command: NOISY },
        intervalSeconds: 60,
        timeoutSeconds: 600,
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      command = made.body.id;
      const wp = await daemon.api("POST", `/api/sessions/${sid}/waitpoints`, {
        label: "train-arm3",
        intent: "Read the loss curve",
        fail_fast: true,
      });
      expect(wp.status, JSON.stringify(wp.body)).toBe(201);
      waitpoint = wp.body.id;
      const failed = await daemon.api("POST", `/api/waitpoints/${waitpoint}/signal`, {
        status: "fail",
        message: "CUDA out of memory at step 1200",
      });
      expect(failed.status, JSON.stringify(failed.body)).toBeLessThan(300);
      await waitFor(async () => ((await daemon.monitor(sid, command)).lastOutput ? true : null), {
        what: "the command's first check",
      });
      panel = await ctx.browser().panel();
      await panel.setViewport({ width: 400, height: 900 });
    }, 60_000);
    afterAll(async () => {
      await panel?.close();
      await ctx.daemon().api("DELETE", `/api/sessions/${sid}`);
    });

    test("a failed command's row shows its exit code and last lines; Open output shows all that is kept, as text", async () => {
      const row = `[data-session="${sid}"] [data-monitor="${command}"]`;
      await panel.waitForSelector(`${row} .last-output`);
      // At rest its one line says the last line and the exit code (as text); expanded, the rest.
      expect(await panel.$eval(`${row} .head .fact`, (e) => e.textContent)).toBe(
        '<b id="injected">2 tests failed</b> (exit 2)',
      );
      await panel.click(`${row} button.expand`);
      await until(`!!document.querySelector('${row}[data-expanded]')`, "the row expanded");
      const shown = await panel.$eval(`${row} .last-output`, (e) => ({
        exit: e.querySelector(".exit")?.textContent,
        lines: e.querySelector("pre.output-tail")?.textContent ?? "",
      }));
      expect(shown.exit).toBe("last check: exit 2");
      const lines = shown.lines.split("\n");
      expect(lines).toHaveLength(20);
      expect(lines.at(-1)).toBe('<b id="injected">2 tests failed</b>');
      expect(lines[0]).toBe("step 232");
      await panel.click(`${row} [data-key$=":output"]`);
      await until(`!!document.querySelector('${row} details.output-all[open] pre')`, "the whole output");
      const all = await panel.$eval(`${row} details.output-all pre`, (e) => e.textContent ?? "");
      expect(all.split("\n")).toHaveLength(200);
      expect(all.split("\n")[0]).toBe("step 52");
      // Text from outside stays text: no element came from the output.
      expect(await panel.$$(`#injected`)).toHaveLength(0);
      await panel.$eval(row, (e) => e.scrollIntoView());
      await panel.screenshot({ path: ctx.shot("cause-output") });
    });

    test("a failed waitpoint's entry leads with its fail message, labelled failed, Show first", async () => {
      const entry = `.needs li[data-attention*="${waitpoint}"]`;
      // Needs you shows its most urgent entries first and follows the filters: after the
      // dashboard's workload this session's entry is found under its session's filter.
      await panel.select('select[data-filter="session"]', sid);
      await panel.waitForSelector(entry, { timeout: 20_000 });
      const shown = await panel.$eval(entry, (li) => ({
        first: li.querySelector(".row.head + .headline")?.textContent,
        chip: li.querySelector(".chip")?.textContent,
        firstButton: li.querySelector(".actions button")?.textContent,
        primary: li.querySelector(".actions button.primary")?.textContent,
        cause: li.querySelector("pre.cause")?.textContent ?? null,
      }));
      expect(shown.first).toBe("CUDA out of memory at step 1200");
      expect(shown.chip).toBe("failed");
      expect(shown.firstButton).toBe("Show");
      expect(shown.primary).toBe("Show");
      expect(shown.cause).toMatch(/signal arrived/);
      await panel.$eval(entry, (e) => e.scrollIntoView());
      await panel.screenshot({ path: ctx.shot("cause-headline") });
      await panel.select('select[data-filter="session"]', "");
    });
  });
}
