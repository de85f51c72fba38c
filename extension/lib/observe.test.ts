import { beforeEach, expect, test } from "vitest";
import { fakeBrowser } from "wxt/testing/fake-browser";
import { listTabs, type ObserveApi, observe, observeApi, sameUrl } from "./observe";

const URL_ = "http://127.0.0.1:8080/ci/run/42";
let page: { exists: boolean; text: string } | Error;

/** WXT's fakeBrowser for tabs; the page read itself is what only a real browser can do (e2e). */
function api(): ObserveApi {
  const real = observeApi(fakeBrowser as never);
  return {
    ...real,
    runInTab: async () => {
      if (page instanceof Error) throw page;
      return { ok: true, ...page };
    },
  };
}

beforeEach(() => {
  fakeBrowser.reset();
  page = { exists: true, text: "Running" };
});

const request = (tabId: number, url = URL_) => ({ id: "h1", type: "observe" as const, tabId, url, selector: "#s" });

test("a tab that does not exist is 'tab closed'", async () => {
  expect(await observe(api(), request(999))).toMatchObject({ ok: false, code: "tab_closed" });
});

test("a tab elsewhere is 'URL differs', naming where it is", async () => {
  const created = await fakeBrowser.tabs.create({ url: "http://127.0.0.1:8080/login" });
  const reply = await observe(
    { ...api(), getTab: async () => ({ ...created, status: "complete" }) },
    request(created.id as number),
  );
  expect(reply).toMatchObject({ ok: false, code: "url_differs" });
  expect((reply as { error: string }).error).toContain("is on http://127.0.0.1:8080/login");
});

test("a tab elsewhere but still navigating is 'page not loaded' (Firefox shows about:blank meanwhile)", async () => {
  const tab = { id: 5, url: "about:blank", title: "", status: "loading" };
  const reply = await observe({ ...api(), getTab: async () => tab }, request(5));
  expect(reply).toMatchObject({ ok: false, code: "not_loaded" });
  expect((reply as { error: string }).error).toBe(`page not loaded: tab 5 is loading about:blank, not ${URL_}`);
});

test("loading or discarded pages are 'page not loaded'; a missing host permission says so", async () => {
  const base = { id: 5, url: URL_, title: "CI" };
  const with_ = (tab: object): ObserveApi => ({ ...api(), getTab: async () => tab });
  expect(await observe(with_({ ...base, status: "loading" }), request(5))).toMatchObject({ code: "not_loaded" });
  expect(await observe(with_({ ...base, status: "complete", discarded: true }), request(5))).toMatchObject({
    code: "not_loaded",
  });
  page = new Error('Cannot access contents of url "http://127.0.0.1:8080/ci/run/42".');
  const denied = await observe(with_({ ...base, status: "complete" }), request(5));
  expect(denied).toMatchObject({ ok: false, code: "no_permission" });
  expect((denied as { error: string }).error).toContain("no permission for 127.0.0.1:8080");
  expect((denied as { error: string }).error).toContain("chrome://extensions → Vigil → Site access");
  // Firefox says "Missing host permission for the tab" and grants sites in about:addons.
  page = new Error("Missing host permission for the tab");
  const firefox = { ...with_({ ...base, status: "complete" }), siteAccess: "about:addons → Vigil → Permissions" };
  const deniedFx = await observe(firefox, request(5));
  expect(deniedFx).toMatchObject({ ok: false, code: "no_permission" });
  expect((deniedFx as { error: string }).error).toContain("(about:addons → Vigil → Permissions)");
});

test("a loaded tab at the exact URL gives the observation", async () => {
  const ok: ObserveApi = { ...api(), getTab: async () => ({ id: 5, url: URL_, title: "CI", status: "complete" }) };
  expect(await observe(ok, request(5))).toEqual({
    id: "h1",
    ok: true,
    result: { text: "Running", exists: true, url: URL_, title: "CI" },
  });
});

test("tabs lists every tab read-only, from the browser's own list", async () => {
  const created = await fakeBrowser.tabs.create({ url: URL_, active: true });
  const reply = await listTabs(api(), "h2");
  expect(reply.ok).toBe(true);
  expect((reply as { result: unknown[] }).result).toContainEqual(
    expect.objectContaining({ tabId: created.id, url: URL_, active: true }),
  );
});

test("exact URL, in the browser's canonical spelling; a different path, query or fragment differs", () => {
  expect(sameUrl("http://localhost:8080/", "http://localhost:8080")).toBe(true);
  expect(sameUrl("http://LOCALHOST:8080/ci", "http://localhost:8080/ci")).toBe(true);
  expect(sameUrl("http://localhost:8080/ci?x=1", "http://localhost:8080/ci")).toBe(false);
  expect(sameUrl("http://localhost:8080/ci#log", "http://localhost:8080/ci")).toBe(false);
  expect(sameUrl("http://localhost:8080/login", "http://localhost:8080/ci")).toBe(false);
  expect(sameUrl(undefined, "http://localhost:8080/ci")).toBe(false);
});
