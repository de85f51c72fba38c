/**
 * What each request's handler is given: the client going away aborts its signal (long-polls end),
 * and the Host check follows the port the server listens on, also after it listens again.
 * Design: docs/design.md §7.
 */
import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, expect, test, vi } from "vitest";
import { silentLogger } from "../base/log.js";
import { wireServices } from "../daemon.js";
import { SqliteEngine } from "../store/engine.js";
import { Store } from "../store/store.js";
import { createApiServer } from "./server.js";

const store = new SqliteEngine(Store.open(":memory:"), { checkScope: true });
const services = await wireServices({ store, log: silentLogger });
await services.delivery.stop();
const TOKEN = "t".repeat(32);
const auth = { authorization: `Bearer ${TOKEN}` };
const server = createApiServer({ services, token: TOKEN, tcpApi: true });
const listen = () =>
  new Promise<number>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)),
  );
afterAll(async () => {
  server.close();
  await services.engine.stop();
  await store.close();
});

test("a long-poll's signal aborts when its client goes away", async () => {
  const port = await listen();
  try {
    await services.engine.createSession({ id: "poller" });
    const claim = services.delivery.claim.bind(services.delivery);
    let handed: (signal: AbortSignal | undefined) => void = () => {};
    const handedSignal = new Promise<AbortSignal | undefined>((resolve) => {
      handed = resolve;
    });
    vi.spyOn(services.delivery, "claim").mockImplementation((sid, options) => {
      handed(options.signal);
      return claim(sid, options);
    });
    const client = new AbortController();
    const answer = fetch(`http://127.0.0.1:${port}/api/sessions/poller/wakes/claim?wait=60`, {
      method: "POST",
      headers: auth,
      signal: client.signal,
    }).catch((error: unknown) => error);
    const signal = (await handedSignal) as AbortSignal;
    expect(signal.aborted).toBe(false);
    const aborted = new Promise((resolve) => signal.addEventListener("abort", resolve));
    client.abort();
    await aborted; // resolves only when the server saw the connection close
    expect(await answer).toBeInstanceOf(Error);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test("the Host check follows the port: after listening again, the new one is this machine's", async () => {
  const first = await listen();
  // node:http, not fetch: fetch does not let a caller choose the Host header.
  const status = (port: number, host: string) =>
    new Promise<number | undefined>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, path: "/api/status", headers: { ...auth, host } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on("error", reject);
      req.end();
    });
  expect(await status(first, `127.0.0.1:${first}`)).toBe(200);
  expect(await status(first, `localhost:${first}`)).toBe(200);
  expect(await status(first, "rebound.example:80")).toBe(421);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  const second = await listen();
  expect(second).not.toBe(first);
  expect(await status(second, `127.0.0.1:${second}`)).toBe(200);
  expect(await status(second, `127.0.0.1:${first}`)).toBe(421);
});
