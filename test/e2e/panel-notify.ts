/**
 * The settings' notification channels (issue #40) in the real panel: channels added with the real
 * CLI (`vigil notify add`, a token in the vault) send to local receivers; the panel lists them with
 * no secret value anywhere in its page, Test delivers (the receiver sees it) and says so, a channel
 * answering 500 shows its error (on Test, and as failing once a real message failed), Pause and
 * Resume change the daemon's channel. axe-core clean; screenshots at 400 px light and 700 px dark go
 * to test/e2e/artifacts/ only.
 */
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "puppeteer";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ExtensionBrowser } from "../helpers/browser.js";
import { type TestDaemon, waitFor } from "../helpers/daemon.js";
import { armFailingMonitor } from "../helpers/failing-monitor.js";
import { axeViolations, PANEL_DUMP } from "./panel-dashboard.js";

export interface NotifyContext {
  daemon(): TestDaemon;
  browser(): ExtensionBrowser;
  shot(name: string): string;
}

const TOKEN = "tk_panel-ntfy-8d7c6b5a";
/** Each URL's path is its own password (kept in the vault; shown only by its origin). */
const TOPIC = "/ntfy/phone-topic-secret-31337";
const HOOK = "/hook/hook-path-secret-2718";
const DOWN = "/discord/down-path-secret-1618";

export function defineNotifyTests(ctx: NotifyContext): void {
  describe("notification channels in the panel's settings (#40)", () => {
    let panel: Page;
    let receiver: Server;
    let base = "";
    let sid = "";
    let signingSecret = "";
    const hits: Array<{ path: string; headers: IncomingHttpHeaders }> = [];
    const entry = (name: string) => `#channels li[data-channel="${name}"]`;
    const outcome = (name: string) =>
      panel.$eval(`${entry(name)} .outcome`, (e) => ({ text: e.textContent, tone: e.getAttribute("data-tone") }));
    const until = (expression: string, what: string, timeoutMs?: number) =>
      waitFor(async () => ((await panel.evaluate(expression)) ? true : null), { what, timeoutMs }).catch(
        async (error) => {
          throw new Error(`${(error as Error).message}; the panel: ${await panel.evaluate(PANEL_DUMP)}`);
        },
      );
    const outcomeIs = (name: string, pattern: string) =>
      until(
        `/${pattern}/.test(document.querySelector(${JSON.stringify(`${entry(name)} .outcome`)})?.textContent ?? "")`,
        `${name}'s outcome ${pattern}`,
      );
    /** The section asks the daemon only while in view. */
    const showSection = async () => {
      await panel.waitForSelector("#channels:not([hidden])");
      await panel.$eval("#channels", (e) => e.scrollIntoView({ block: "start" }));
    };
    const channel = async (name: string) => {
      const ls = await ctx.daemon().cli(["notify", "ls", "--json"]);
      return JSON.parse(String(ls.stdout)).find((c: { name: string }) => c.name === name);
    };

    beforeAll(async () => {
      receiver = createServer((req, res) => {
        req.resume();
        req.on("end", () => {
          hits.push({ path: req.url ?? "", headers: req.headers });
          const down = req.url === DOWN;
          res.writeHead(down ? 500 : 200, { "content-type": "application/json" }).end(down ? "upstream is down" : "{}");
        });
      });
      receiver.listen(0, "127.0.0.1");
      await once(receiver, "listening");
      base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
      sid = await ctx.daemon().newSession("notify");
      panel = await ctx.browser().panel();
      await panel.setViewport({ width: 400, height: 900 });
    }, 60_000);

    afterAll(async () => {
      for (const name of ["phone", "hook", "broken"]) await ctx.daemon().cli(["notify", "rm", name]);
      await ctx.daemon().api("DELETE", `/api/sessions/${sid}`);
      await panel?.close();
      receiver?.close();
    });

    test("with no channel, the section says so, shows the command to copy and that adding stays in the CLI", async () => {
      await showSection();
      await panel.waitForSelector('#channels [data-testid="no-channels"]');
      const text = await panel.$eval("#channels", (e) => e.textContent ?? "");
      expect(text).toContain("No notification channel yet. Add one: vigil notify add ntfy https://ntfy.sh/YOUR-TOPIC");
      expect(text).toContain("Add or remove a channel with vigil notify");
    });

    test("channels added with the CLI are listed, one entry each, with no secret value in the page", async () => {
      const daemon = ctx.daemon();
      const vault = await daemon.cli(["vault", "set", "PANEL_NTFY_TOKEN"], { input: `${TOKEN}\n` });
      expect(vault.exitCode, String(vault.stderr)).toBe(0);
      for (const args of [
        ["ntfy", `${base}${TOPIC}`, "--token-secret", "PANEL_NTFY_TOKEN", "--name", "phone"],
        ["webhook", `${base}${HOOK}`, "--name", "hook"],
        ["discord", `${base}${DOWN}`, "--name", "broken"],
      ]) {
        const added = await daemon.cli(["notify", "add", ...args, "--session", sid]);
        expect(added.exitCode, String(added.stderr)).toBe(0);
        signingSecret ||= /whsec_[A-Za-z0-9+/=]+/.exec(String(added.stdout))?.[0] ?? "";
      }
      expect(signingSecret).toMatch(/^whsec_/);
      // Adding is not a change of the list the panel follows: it shows them once opened again.
      await ctx.browser().reloadPanel(panel);
      await showSection();
      await panel.waitForSelector(`${entry("broken")}`);
      const shown = await panel.$$eval("#channels li.channel", (lis) =>
        lis.map((li) => ({
          name: li.querySelector(".name")?.textContent,
          kind: li.querySelector(".kind")?.textContent,
          state: li.querySelector(".chip")?.textContent,
          target: li.querySelector(".target")?.textContent,
          details: li.querySelector(".details")?.textContent,
          buttons: [...li.querySelectorAll("button")].map((b) => b.textContent),
        })),
      );
      expect(shown.map((c) => c.name).sort()).toEqual(["broken", "hook", "phone"]);
      // A channel tells of the sessions of the host that added it (this daemon's).
      const host = (await daemon.api("GET", "/api/status")).body.host.name;
      for (const c of shown) {
        expect(c.target).toBe(`${base} (path hidden)`);
        expect(c.state).toBe("no message yet");
        expect(c.details).toBe(`sessions ${sid} · host ${host} · what needs you · no message sent`);
        expect(c.buttons).toEqual(["Test", "Pause"]);
      }
      expect(shown.find((c) => c.name === "phone")?.kind).toBe("ntfy");
      const html = await panel.evaluate("document.documentElement.outerHTML");
      for (const secret of [TOKEN, signingSecret, "phone-topic-secret", "hook-path-secret", "down-path-secret"])
        expect(html).not.toContain(secret);
    });

    test("Test delivers to the channel now and the panel says sent", async () => {
      await panel.click(`${entry("phone")} [data-channel-action="test"]`);
      await outcomeIs("phone", "^sent$");
      const delivered = hits.filter((hit) => hit.path === TOPIC);
      expect(delivered).toHaveLength(1);
      expect(delivered[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
      expect(await outcome("phone")).toEqual({ text: "sent", tone: null });
      expect(await panel.$eval(`${entry("phone")} .outcome`, (e) => e.getAttribute("aria-live"))).toBe("polite");
    });

    test("a channel answering 500 shows its error on Test, and as failing once a real message failed", async () => {
      await panel.click(`${entry("broken")} [data-channel-action="test"]`);
      await outcomeIs("broken", "^failed: ");
      const tested = await outcome("broken");
      expect(tested.text).toContain("500");
      expect(tested.tone).toBe("failed");
      // A real entry for the channels' session: the notifier sends it, the receiver answers 500.
      await armFailingMonitor(ctx.daemon(), sid, "Health endpoint");
      await waitFor(async () => ((await channel("broken"))?.lastError ? true : null), {
        what: "the daemon's broken channel failing",
        timeoutMs: 30_000,
      });
      // The panel asks again on its own (after the change, or its half-minute refresh).
      await until(
        `!!document.querySelector(${JSON.stringify(`${entry("broken")}[data-state="failing"] .error`)})`,
        "the broken channel shown failing",
        45_000,
      );
      const failing = await panel.$eval(entry("broken"), (li) => ({
        chip: li.querySelector(".chip")?.textContent,
        error: li.querySelector(".error")?.textContent ?? "",
      }));
      expect(failing.chip).toBe("failing");
      expect(failing.error).toMatch(/^last error .*: .*500/);
      const html = await panel.evaluate("document.documentElement.outerHTML");
      expect(html).not.toContain("down-path-secret");
    });

    test("Pause makes the daemon's channel paused; Resume reverses it", async () => {
      await panel.click(`${entry("phone")} [data-channel-action="pause"]`);
      await outcomeIs("phone", "^paused$");
      await panel.waitForSelector(`${entry("phone")}[data-state="paused"] [data-channel-action="resume"]`);
      expect((await channel("phone")).paused).toBe(true);
      expect(await panel.$eval(`${entry("phone")} .chip`, (e) => e.textContent)).toBe("paused");

      await panel.click(`${entry("phone")} [data-channel-action="resume"]`);
      await outcomeIs("phone", "^resumed$");
      await panel.waitForSelector(`${entry("phone")}:not([data-state="paused"]) [data-channel-action="pause"]`);
      expect((await channel("phone")).paused).toBe(false);
    });

    test("axe-core finds no serious or critical violation (light and dark); screenshots at 400 px and 700 px dark", async () => {
      await panel.$eval("#channels", (e) => e.scrollIntoView({ block: "start" }));
      expect(await axeViolations(panel)).toEqual([]);
      await panel.screenshot({ path: ctx.shot("notify-channels") });
      await ctx.browser().colorScheme(panel, "dark");
      try {
        await panel.setViewport({ width: 700, height: 900 });
        await panel.$eval("#channels", (e) => e.scrollIntoView({ block: "start" }));
        expect(await axeViolations(panel)).toEqual([]);
        await panel.screenshot({ path: ctx.shot("notify-channels-700-dark") });
      } finally {
        await ctx.browser().colorScheme(panel, "light");
        await panel.setViewport({ width: 400, height: 900 });
      }
    });
  });
}
