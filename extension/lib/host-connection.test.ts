import { describe, expect, test } from "vitest";
import { BACKOFF, HostConnection, type NativePortLike } from "./host-connection";
import type { LinkState } from "./panel-protocol";

/** A native port the test drives: what the extension posts, and the host's side of it. */
class FakePort implements NativePortLike {
  posted: any[] = [];
  error: { message: string } | null = null;
  #onMessage: Array<(m: unknown) => void> = [];
  #onDisconnect: Array<(p: NativePortLike) => void> = [];
  onMessage = { addListener: (l: (m: unknown) => void) => this.#onMessage.push(l) };
  onDisconnect = { addListener: (l: (p: NativePortLike) => void) => this.#onDisconnect.push(l) };
  postMessage(message: unknown) {
    this.posted.push(message);
  }
  disconnect() {}
  fromHost(message: unknown) {
    for (const l of this.#onMessage) l(message);
  }
  close() {
    for (const l of this.#onDisconnect) l(this);
  }
}

function setup(lastError = "Specified native messaging host not found.") {
  const ports: FakePort[] = [];
  const states: LinkState[] = [];
  const timers: Array<{ callback: () => void; ms: number; cleared: boolean }> = [];
  const changed: Array<string | null> = [];
  const connection = new HostConnection({
    connectNative: () => {
      const port = new FakePort();
      ports.push(port);
      return port;
    },
    lastError: () => lastError,
    onHostRequest: async (request) => ({ id: request.id, ok: true, result: { echo: request.type } }),
    onState: (state) => states.push(state),
    onChanged: (sessionId) => changed.push(sessionId),
    setTimer: (callback, ms) => {
      const timer = { callback, ms, cleared: false };
      timers.push(timer);
      return timer;
    },
    clearTimer: (handle) => {
      (handle as { cleared: boolean }).cleared = true;
    },
  });
  const fire = (ms: number) => {
    const timer = timers.find((t) => !t.cleared && t.ms === ms);
    if (!timer) throw new Error(`no timer of ${ms} ms among ${timers.map((t) => t.ms)}`);
    timer.cleared = true;
    timer.callback();
  };
  return { connection, ports, states, timers, changed, fire };
}

describe("the native port", () => {
  test("a missing host: says how to install, retries with doubling backoff up to 30 s", () => {
    const { connection, ports, states, fire } = setup();
    connection.start();
    ports[0]?.close();
    expect(states.at(-1)).toMatchObject({ status: "no_host" });
    expect((states.at(-1) as { error: string }).error).toContain("npx vigil install");
    let delay: number = BACKOFF.firstMs;
    for (let attempt = 1; attempt < 8; attempt++) {
      fire(delay);
      expect(ports).toHaveLength(attempt + 1);
      ports[attempt]?.close();
      delay = Math.min(delay * 2, BACKOFF.maxMs);
    }
    expect(connection.retryDelayMs).toBe(BACKOFF.maxMs);
  });

  test("Firefox: the reason is on the closed port (port.error), not in runtime.lastError", () => {
    const { connection, ports, states } = setup("");
    connection.start();
    const port = ports[0] as FakePort;
    port.error = { message: "No such native application dev.vigil.host" };
    port.close();
    expect(states.at(-1)).toMatchObject({ status: "no_host" });
    expect((states.at(-1) as { error: string }).error).toContain("No such native application dev.vigil.host");
    expect((states.at(-1) as { error: string }).error).toContain("npx vigil install");
  });

  test("the bridge's daemon pushes drive the state, and a connection resets the backoff", () => {
    const { connection, ports, states, fire } = setup("Native host has exited.");
    connection.start();
    ports[0]?.close();
    expect(states.at(-1)).toMatchObject({ status: "daemon_down" });
    fire(BACKOFF.firstMs);
    ports[1]?.fromHost({ type: "daemon", connected: false, error: "The Vigil daemon stopped." });
    expect(states.at(-1)).toEqual({ status: "daemon_down", error: "The Vigil daemon stopped." });
    ports[1]?.fromHost({ type: "daemon", connected: true });
    expect(states.at(-1)).toEqual({ status: "connected" });
    expect(connection.retryDelayMs).toBe(BACKOFF.firstMs);
  });

  test("panel requests get ids and their replies; a closed port fails what is pending", async () => {
    const { connection, ports } = setup("Native host has exited.");
    connection.start();
    const port = ports[0] as FakePort;
    const list = connection.request({ type: "list", offset: 0, limit: 10 });
    const ping = connection.request({ type: "ping" });
    const [first, second] = port.posted;
    expect(first).toEqual({ type: "list", offset: 0, limit: 10, id: 1 });
    port.fromHost({ id: second.id, ok: false, error: "nope" });
    port.fromHost({ id: first.id, ok: true, result: { total: 0 } });
    await expect(list).resolves.toEqual({ total: 0 });
    await expect(ping).rejects.toThrow("nope");
    const hanging = connection.request({ type: "status" });
    port.close();
    await expect(hanging).rejects.toThrow("Native host has exited.");
  });

  test("the daemon's requests are answered by the handler; bad ones get an error reply", async () => {
    const { connection, ports, changed } = setup();
    connection.start();
    const port = ports[0] as FakePort;
    port.fromHost({ id: "h1", type: "tabs" });
    port.fromHost({ id: "h2", type: "observe", tabId: -1, url: "x", selector: "#a" });
    port.fromHost({ type: "changed", sessionId: "s1" });
    port.fromHost({ type: "changed" }); // the devices changed
    await new Promise((resolve) => setImmediate(resolve));
    expect(port.posted).toContainEqual({ id: "h1", ok: true, result: { echo: "tabs" } });
    const refused = port.posted.find((m) => m.id === "h2");
    expect(refused.ok).toBe(false);
    expect(refused.error).toContain("does not understand");
    expect(changed).toEqual(["s1", null]);
  });
});
