/**
 * A Needs-you cause that arises from time passing reaches an open panel (issue #38 item 8): a wake
 * nothing takes becomes "not taken" after VIGIL_WAKE_NOT_TAKEN_MS (here 3 s) with nothing else
 * changing, and the panel, open all along and never reloaded, shows it. Its own daemon and browser:
 * the short threshold would turn the dashboard workload's ready wakes into entries too.
 */
import { expect, test } from "vitest";
import { type BrowserKind, launchExtensionBrowser } from "../helpers/browser.js";
import { TestDaemon, waitFor } from "../helpers/daemon.js";

export function defineTimeTests(kind: BrowserKind): void {
  test("a wake not taken shows in an open panel once its time has passed, without a reload", async () => {
    const daemon = await TestDaemon.start({ env: { VIGIL_WAKE_NOT_TAKEN_MS: "3000" } });
    const browser = await launchExtensionBrowser(kind, daemon);
    try {
      await waitFor(async () => (await browser.linkStatus()) === "connected", { what: "the extension connected" });
      const panel = await browser.panel();
      await panel.waitForSelector("section.needs");
      // A quiet session (no adapter: nothing delivers its wake) whose monitor is met at once.
      const sid = await daemon.newSession("quiet");
      const armed = await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
        name: "Nightly export done",
        source: { kind: "command", command: "true" },
        intervalSeconds: 5,
      });
      expect(armed.status).toBe(201);
      await daemon.waitForState(sid, armed.body.id, ["ready"]);
      const navigations = await panel.evaluate("performance.getEntriesByType('navigation').length");
      const entry = `.needs li[data-reason="wake_not_taken"][data-attention*=":${sid}:"]`;
      await waitFor(async () => ((await panel.$(entry)) ? true : null), {
        what: "the wake-not-taken entry in the open panel",
      });
      // The same page all along: it heard of it, nobody reloaded it.
      expect(await panel.evaluate("performance.getEntriesByType('navigation').length")).toBe(navigations);
      expect(await panel.$eval(entry, (e) => e.querySelector(".name")?.textContent)).toBe("Nightly export done");
    } finally {
      await browser.close();
      await daemon.dispose();
    }
  }, 60_000);
}
