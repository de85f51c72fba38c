/**
 * A met `http__get` row (issue #38 item 13), against a local JSON endpoint that answers with
 * headers: at rest the row shows what its condition read (the status and the JSON path's value),
 * never the headers; expanded, the fields one a line, the URL whole and broken only inside itself,
 * the rest (the whole observation) under them. Its own session, removed after.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "vitest";
import type { PanelWorkContext } from "./panel-work.js";

/** A long URL of digits and dashes, the kind that wrapped mid-number. */
const PATH = "/api/v2/deployments/2026120600420042004200420042/status-with-a-rather-long-tail?include=steps&verbose=1";

export function defineHttpRowTest(ctx: PanelWorkContext): void {
  test("a met http__get row shows the status and the value its condition read, the rest on expand; its URL breaks inside itself", async () => {
    const panel = ctx.panel();
    const daemon = ctx.daemon();
    const server = createServer((_req, res) => {
      res
        .writeHead(200, { "content-type": "application/json", "x-request-id": "req-7f3a", "cache-control": "no-store" })
        .end(JSON.stringify({ deployment: { id: 42, state: "success", steps: ["build", "test", "ship"] } }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${PATH}`;
    const sid = "wl-status";
    try {
      expect((await daemon.api("POST", "/api/sessions", { id: sid, label: "Status page" })).status).toBeLessThan(300);
      const armed = await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
        name: "Deployment 42 succeeded",
        source: {
          kind: "tool",
          name: "http__get",
          args: { url },
          condition: { path: "body.deployment.state", operator: "equals", value: "success" },
        },
        intervalSeconds: 30,
      });
      expect(armed.status, JSON.stringify(armed.body)).toBe(201);
      const id = armed.body.id as string;
      const met = await daemon.waitForState(sid, id, ["ready", "finished"]);
      expect(met.ending.reason).toBe("met");
      expect(met.readFields).toEqual([
        { path: "status", value: "200" },
        { path: "body.deployment.state", value: '"success"' },
      ]);

      const option = `select[data-filter="session"] option[value="${sid}"]`;
      await ctx.until(`!!document.querySelector('${option}')`, "the session in the session filter");
      await panel.select('select[data-filter="session"]', sid);
      await ctx.until(
        `[...document.querySelectorAll("li.monitor")].every((li) => li.closest("[data-session]")?.dataset.session === "${sid}")`,
        "the status page's rows alone",
      );
      const row = `[data-session="${sid}"] li.monitor[data-monitor="${id}"]`;
      await ctx.until(`!!document.querySelector('${row}')`, "the http row");
      const rest = await panel.$eval(row, (li) => ({
        chip: li.querySelector(".head .chip")?.textContent,
        fact: li.querySelector(".head .fact")?.textContent,
        height: li.getBoundingClientRect().height,
      }));
      expect(rest.chip).toBe("met");
      expect(rest.fact).toBe('status 200 · body.deployment.state "success"');
      expect(rest.fact).not.toContain("x-request-id");

      await ctx.click(`${row} button.expand`);
      await ctx.until(`!!document.querySelector('${row}[data-expanded]')`, "the http row expanded");
      const open = await panel.$eval(row, (li) => {
        const code = li.querySelector(".url code") as any;
        return {
          fields: [...li.querySelectorAll("dl.read-fields dt, dl.read-fields dd")].map((e) => e.textContent),
          url: code?.textContent,
          wrap: (globalThis as any).getComputedStyle(code).overflowWrap,
          nameWrap: (globalThis as any).getComputedStyle(li.querySelector(".details-line")).overflowWrap,
          urlWidth: code.getBoundingClientRect().width,
          urlLines: Math.round(
            code.getBoundingClientRect().height /
              Number.parseFloat((globalThis as any).getComputedStyle(code).lineHeight),
          ),
          rowWidth: li.clientWidth,
          rest: li.querySelector(".last-event")?.textContent ?? "",
        };
      });
      expect(open.fields).toEqual(["status", "200", "body.deployment.state", '"success"']);
      expect(open.url).toBe(url);
      // The URL alone may break anywhere; it stays inside the row.
      expect(open.wrap).toBe("anywhere");
      expect(open.nameWrap).not.toBe("anywhere");
      expect(open.urlWidth).toBeLessThanOrEqual(open.rowWidth);
      expect(open.urlLines).toBeGreaterThan(1);
      // The rest (headers and all) is there on expand.
      expect(open.rest).toContain("x-request-id");
      await ctx.shots("http-row", 400);
      await ctx.shots("http-row-700", 700);
    } finally {
      server.close();
      await panel.select('select[data-filter="session"]', "");
      await daemon.api("DELETE", `/api/sessions/${sid}`);
      await ctx.until(`!document.querySelector('[data-session="${sid}"]')`, "the status page's session gone");
    }
  });
}
