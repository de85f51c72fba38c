/**
 * Ids are never reused (issue 25, finding 6): wakes and monitors take AUTOINCREMENT rowids, so after
 * a session (and with it the newest wake) is deleted, the next wake gets a new number — and so a new
 * `webhook-id` a deduplicating receiver will not drop, and a new transcript tag for hook handovers.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";
import { TestDaemon, waitFor } from "../helpers/daemon.js";

let daemon: TestDaemon;

beforeAll(async () => {
  daemon = await TestDaemon.start();
});
afterAll(() => daemon.dispose());

/** A webhook receiver that records each message id it was sent, with the body's wake ids. */
async function receiver() {
  const received: Array<{ messageId: string; wakes: string[] }> = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      const wakes = (JSON.parse(body) as { wakes: Array<{ id: string }> }).wakes.map((wake) => wake.id);
      received.push({ messageId: String(req.headers["webhook-id"]), wakes });
      res.end("thanks");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const close = () =>
    new Promise((resolve) => {
      server.close(resolve);
      server.closeAllConnections();
    });
  return { url, received, close };
}

/** The session (made with a webhook adapter), a waitpoint in it, and its ok: one delivered wake. */
async function oneWake(sid: string, url: string) {
  const created = await daemon.api("POST", "/api/sessions", { id: sid, adapter: { kind: "webhook", url } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const armed = await daemon.api("POST", `/api/sessions/${sid}/waitpoints`, { label: "job", intent: "read it" });
  expect(armed.status, JSON.stringify(armed.body)).toBe(201);
  const signalled = await fetch(`${daemon.url}/webhook/signal`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ id: armed.body.id, secret: armed.body.secret, status: "ok" }),
  });
  expect(signalled.status).toBe(202);
  const wakes = await waitFor(
    async () => {
      const list = (await daemon.api("GET", `/api/sessions/${sid}/wakes`)).body as Array<{ id: string; state: string }>;
      return list.length === 1 && list[0]?.state === "delivered" ? list : null;
    },
    { what: `${sid}'s wake delivered` },
  );
  return (wakes[0] as { id: string }).id;
}

test("a wake made after its session was deleted gets a new id and a new webhook-id, even under the same session id", async () => {
  const hook = await receiver();
  try {
    const first = await oneWake("agent-7", hook.url);
    expect(hook.received).toHaveLength(1);
    expect((await daemon.api("DELETE", "/api/sessions/agent-7")).status).toBe(200);

    // The agent's session comes back (same id, as Claude Code's and Codex's do) and is woken again.
    const second = await oneWake("agent-7", hook.url);
    expect(second).not.toBe(first);
    expect(hook.received).toHaveLength(2);
    const [before, after] = hook.received;
    expect(before?.wakes).toEqual([first]);
    expect(after?.wakes).toEqual([second]);
    expect(after?.messageId).not.toBe(before?.messageId);

    // And another session's wake is new too.
    const third = await oneWake("agent-8", hook.url);
    expect(new Set([first, second, third]).size).toBe(3);
  } finally {
    await hook.close();
  }
});
