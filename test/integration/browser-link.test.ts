/**
 * The browser source end to end without a browser: the real daemon, the real `vigil native-host`,
 * and a stand-in extension on the bridge's stdio that answers `observe` and `tabs` the way the
 * real one does (the real one is tested in test/e2e).
 */
import { type AddressInfo, createServer } from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";
import { NOT_CONNECTED } from "../../native-host/src/browser/link.js";
import { TestDaemon, waitFor } from "../helpers/daemon.js";
import { NativePort } from "../helpers/native-port.js";

const PAGE = "http://127.0.0.1:9/ci/run/42";

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
let daemon: TestDaemon;

beforeAll(async () => {
  daemon = await TestDaemon.start();
});
afterAll(() => daemon.dispose());

const browserMonitor = (session: string, selector = "[data-testid=run-status]") =>
  daemon.api("POST", `/api/sessions/${session}/monitors`, {
    name: "CI run 42",
    source: {
      kind: "browser",
      tabId: 7,
      url: PAGE,
      selector,
      condition: { path: "text", operator: "equals", value: "Succeeded" },
    },
    intervalSeconds: 0.3,
    timeoutSeconds: 60,
  });

test("with no browser connected, a check records 'browser not connected' and keeps waiting; tabs answer 503", async () => {
  const session = await daemon.newSession();
  const created = await browserMonitor(session);
  expect(created.status).toBe(201);
  const view = await waitFor(async () => {
    const v = await daemon.monitor(session, created.body.id);
    return v.lastError ? v : null;
  });
  expect(view.lastError).toBe(NOT_CONNECTED);
  expect(view.state).toBe("waiting");
  const tabs = await daemon.api("GET", "/api/browser/tabs");
  expect(tabs.status).toBe(503);
  expect(tabs.body.error.message).toBe(NOT_CONNECTED);
  await daemon.api("POST", `/api/sessions/${session}/monitors/${created.body.id}/control`, { action: "cancel" });
});

test("bad browser sources are refused with the field and what was expected", async () => {
  const session = await daemon.newSession();
  const reply = await daemon.api("POST", `/api/sessions/${session}/monitors`, {
    source: { kind: "browser", tabId: 1, url: "file:///etc/passwd", selector: "", condition: { operator: "exists" } },
  });
  expect(reply.status).toBe(400);
  expect(reply.body.error.message).toContain("source.url: Expected an absolute http(s) URL");
  expect(reply.body.error.message).toContain("source.selector: Expected a CSS selector");
});

test("observe through the bridge: distinct errors keep it waiting, the matching text ends it met", async () => {
  const port = NativePort.open(daemon.home);
  const page = { url: PAGE, text: "Running", closed: false };
  const observed: any[] = [];
  port.answer = (request) => {
    if (request.type === "tabs")
      return {
        id: request.id,
        ok: true,
        result: [{ tabId: 7, url: page.url, title: "CI", active: true, windowId: 1 }],
      };
    observed.push(request);
    if (page.closed)
      return { id: request.id, ok: false, code: "tab_closed", error: "tab closed: tab 7 no longer exists" };
    if (page.url !== request.url)
      return { id: request.id, ok: false, code: "url_differs", error: `URL differs: tab 7 is on ${page.url}` };
    return { id: request.id, ok: true, result: { text: page.text, exists: true, url: page.url, title: "CI" } };
  };
  try {
    await waitFor(async () => (await daemon.api("GET", "/api/status")).body.browserConnected, { what: "bridge" });
    const tabs = await daemon.api("GET", "/api/browser/tabs");
    expect(tabs).toEqual({ status: 200, body: [{ tabId: 7, url: PAGE, title: "CI", active: true, windowId: 1 }] });
    // One read now, to try a selector before arming (REST and the browser__observe tool).
    const probe = { tabId: 7, url: PAGE, selector: "[data-testid=run-status]" };
    expect(await daemon.api("POST", "/api/browser/observe", probe)).toEqual({
      status: 200,
      body: { text: "Running", exists: true, url: PAGE, title: "CI" },
    });
    const elsewhere = await daemon.api("POST", "/api/browser/observe", { ...probe, url: `${PAGE}/x` });
    expect(elsewhere).toEqual({
      status: 422,
      body: { error: { code: "unprocessable", message: `URL differs: tab 7 is on ${PAGE}` } },
    });
    expect((await daemon.api("POST", "/api/browser/observe", { ...probe, tabId: "7" })).status).toBe(400);
    observed.length = 0;

    const session = await daemon.newSession();
    const { body: monitor } = await browserMonitor(session);
    await waitFor(() => observed.length >= 2, { what: "two observations" });
    expect(observed[0]).toMatchObject({ type: "observe", tabId: 7, url: PAGE, label: "CI run 42" });
    expect((await daemon.monitor(session, monitor.id)).state).toBe("waiting");

    page.url = "http://127.0.0.1:9/login";
    const redirected = await waitFor(async () => {
      const v = await daemon.monitor(session, monitor.id);
      return v.lastError?.startsWith("URL differs") ? v : null;
    });
    expect(redirected).toMatchObject({
      state: "waiting",
      lastError: "URL differs: tab 7 is on http://127.0.0.1:9/login",
    });

    page.url = PAGE;
    page.text = "Succeeded";
    const ended = await daemon.waitForState(session, monitor.id, ["ready", "finished"]);
    expect(ended.ending.reason).toBe("met");
    expect(ended.lastObservation).toEqual({ text: "Succeeded", exists: true, url: PAGE, title: "CI" });
    const wakes = await daemon.api("GET", `/api/sessions/${session}/wakes`);
    expect(wakes.body[0].text).toContain("Succeeded");

    // A second monitor on a closed tab records "tab closed" and keeps waiting.
    page.closed = true;
    const { body: second } = await browserMonitor(session);
    const closed = await waitFor(async () => {
      const v = await daemon.monitor(session, second.id);
      return v.lastError ? v : null;
    });
    expect(closed).toMatchObject({ state: "waiting", lastError: "tab closed: tab 7 no longer exists" });

    // A missing element is an error unless the condition asks about presence.
    page.closed = false;
    port.answer = (request) =>
      request.type === "observe"
        ? { id: request.id, ok: true, result: { text: "", exists: false, url: PAGE, title: "CI" } }
        : { id: request.id, ok: true, result: [] };
    const missing = await waitFor(async () => {
      const v = await daemon.monitor(session, second.id);
      return v.lastError?.startsWith("element missing") ? v : null;
    });
    expect(missing.lastError).toBe(
      `element missing: nothing matches [data-testid=run-status] on ${PAGE} (the page changed, or has not rendered it yet)`,
    );
    const gone = await daemon.api("POST", `/api/sessions/${session}/monitors`, {
      source: {
        kind: "browser",
        tabId: 7,
        url: PAGE,
        selector: "#spinner",
        condition: { path: "exists", operator: "equals", value: false },
      },
      intervalSeconds: 0.3,
      timeoutSeconds: 60,
    });
    expect((await daemon.waitForState(session, gone.body.id, ["ready", "finished"])).ending.reason).toBe("met");
  } finally {
    expect(await port.close()).toBe(0);
  }
});

test("the bridge tells the browser when the daemon stops and reconnects when it is back", async () => {
  const port = NativePort.open(daemon.home);
  port.answer = (request) => ({ id: request.id, ok: true, result: [] });
  try {
    await port.waitForPush("daemon", (push) => push.connected === true);
    const session = await daemon.newSession();
    // A change in the daemon is pushed to the browser (the side panel refreshes on it).
    await daemon.api("POST", `/api/sessions/${session}/monitors`, {
      source: { kind: "time", at: new Date(Date.now() + 3_600_000).toISOString() },
      timeoutSeconds: 7200,
    });
    await port.waitForPush("changed", (push) => push.sessionId === session);
    // So is a device's, added and removed: a push without a session (the Devices section refreshes).
    const pushed = port.pushes("changed").length;
    await daemon.api("POST", "/api/devices", { name: "gpu1", ssh: "nobody@127.0.0.1", port: await closedPort() });
    await port.waitForPush("changed", (push) => push.sessionId === undefined, pushed);
    const added = port.pushes("changed").length;
    await daemon.api("DELETE", "/api/devices/gpu1");
    await port.waitForPush("changed", (push) => push.sessionId === undefined, added);

    await daemon.kill9();
    await port.waitForPush("daemon", (push) => push.connected === false);
    port.send({ id: "while-down", type: "ping" });
    expect(await port.reply("while-down")).toEqual({ id: "while-down", ok: true, result: { pong: true } });
    const before = port.pushes("daemon").length;
    await daemon.spawn();
    await port.waitForPush("daemon", (push) => push.connected === true, before);
    await waitFor(async () => (await daemon.api("GET", "/api/browser/tabs")).status === 200, { what: "tabs again" });
    port.send({ id: "after", type: "status" });
    expect((await port.reply("after")).ok).toBe(true);
  } finally {
    expect(await port.close()).toBe(0);
  }
});
