/**
 * `observe {tabId, url, selector}` (design.md §4.1, §8): reads only that tab, only that element, after
 * checking the tab is exactly at `url`. It never activates, navigates or clicks, and the only code
 * it runs in the page is `readElement` below — fixed in the extension, never supplied by an agent.
 */
import type { HostReply, HostRequest, Observation, ObserveErrorCode, Tab } from "../../shared/schemas/native-messages";

type BrowserApi = typeof import("wxt/browser").browser;
type ObserveRequest = Extract<HostRequest, { type: "observe" }>;

interface TabInfo {
  id?: number;
  url?: string;
  title?: string;
  status?: string;
  discarded?: boolean;
  active?: boolean;
  windowId?: number;
}

/** What observe needs from the browser (the real `browser` in the worker, a fake in unit tests). */
export interface ObserveApi {
  /** Undefined or a rejection: no such tab. */
  getTab(tabId: number): Promise<TabInfo | undefined>;
  queryTabs(): Promise<TabInfo[]>;
  /** Runs `readElement(selector)` in the tab's top frame and returns its result. */
  runInTab(tabId: number, selector: string): Promise<ReturnType<typeof readElement> | undefined>;
  /** Where the user allows the extension on a site, in this browser's own words. */
  siteAccess?: string;
}

const CHROMIUM_SITE_ACCESS = "chrome://extensions → Vigil → Site access";
const FIREFOX_SITE_ACCESS = "about:addons → Vigil → Permissions";

/** Firefox's extension pages (its background too) are moz-extension://: the one place observe's words differ. */
function siteAccessHere(): string {
  const here = (globalThis as { location?: { protocol?: string } }).location?.protocol;
  return here === "moz-extension:" ? FIREFOX_SITE_ACCESS : CHROMIUM_SITE_ACCESS;
}

/**
 * Runs inside the page, so it must be self-contained (it is serialised by executeScript). The
 * text is what a person sees (`innerText`), trimmed and capped.
 */
export function readElement(selector: string): { ok: boolean; exists: boolean; text: string; error?: string } {
  let element: Element | null;
  try {
    element = document.querySelector(selector);
  } catch (error) {
    return { ok: false, exists: false, text: "", error: `invalid selector ${selector}: ${String(error)}` };
  }
  if (!element) return { ok: true, exists: false, text: "" };
  // What a person sees (hidden text excluded), which is what an agent means by "the page says".
  // biome-ignore lint/performance/useDomNodeTextContent: rendered text is the point here
  const text = (element as HTMLElement).innerText ?? element.textContent ?? "";
  return { ok: true, exists: true, text: text.trim().slice(0, 100_000) };
}

/** The real thing: the worker's `browser` (or WXT's fakeBrowser in unit tests). */
export function observeApi(browser: BrowserApi): ObserveApi {
  return {
    siteAccess: siteAccessHere(),
    getTab: (tabId) => browser.tabs.get(tabId),
    queryTabs: () => browser.tabs.query({}),
    runInTab: async (tabId, selector) => {
      const [result] = await browser.scripting.executeScript({
        target: { tabId },
        func: readElement,
        args: [selector],
      });
      return result?.result as ReturnType<typeof readElement> | undefined;
    },
  };
}

/** Exactly the same page, in the browser's canonical spelling (`http://host` is `http://host/`). */
export function sameUrl(actual: string | undefined, expected: string): boolean {
  if (actual === undefined) return false;
  try {
    return new URL(actual).href === new URL(expected).href;
  } catch {
    return actual === expected;
  }
}

const fail = (id: string, code: ObserveErrorCode, error: string): HostReply => ({ id, ok: false, code, error });

export async function observe(api: ObserveApi, request: ObserveRequest): Promise<HostReply> {
  const { id, tabId, url, selector } = request;
  let tab: TabInfo | undefined;
  try {
    tab = await api.getTab(tabId);
  } catch {
    tab = undefined;
  }
  if (!tab) {
    return fail(
      id,
      "tab_closed",
      `tab closed: tab ${tabId} no longer exists (the monitor keeps checking until its deadline)`,
    );
  }
  if (!sameUrl(tab.url, url)) {
    // Mid-navigation a tab shows a passing URL (Firefox: about:blank); where it lands is the fact.
    if (tab.status === "loading") {
      return fail(
        id,
        "not_loaded",
        `page not loaded: tab ${tabId} is loading ${tab.url ?? "a page the extension cannot see"}, not ${url}`,
      );
    }
    return fail(
      id,
      "url_differs",
      `URL differs: tab ${tabId} is on ${tab.url ?? "a page the extension cannot see"}, not ${url} (a redirect to a login page?)`,
    );
  }
  if (tab.discarded) {
    return fail(
      id,
      "not_loaded",
      `page not loaded: tab ${tabId} was discarded by the browser to save memory; click it to reload`,
    );
  }
  if (tab.status !== "complete") {
    return fail(id, "not_loaded", `page not loaded: tab ${tabId} is still loading ${url}`);
  }
  let read: Awaited<ReturnType<ObserveApi["runInTab"]>>;
  try {
    read = await api.runInTab(tabId, selector);
  } catch (error) {
    const message = String((error as Error).message ?? error);
    if (/cannot access|permission|host_permissions|Cannot be scripted/i.test(message)) {
      return fail(
        id,
        "no_permission",
        `no permission for ${new URL(url).host}: allow the Vigil extension on this site (${api.siteAccess ?? CHROMIUM_SITE_ACCESS}) (${message})`,
      );
    }
    if (/No tab with id/i.test(message))
      return fail(id, "tab_closed", `tab closed: tab ${tabId} closed while being read`);
    return fail(id, "failed", `reading tab ${tabId} failed: ${message}`);
  }
  if (!read) return fail(id, "not_loaded", `page not loaded: tab ${tabId} gave no result (the page is navigating)`);
  if (!read.ok) return fail(id, "failed", read.error ?? "reading the element failed");
  const observation: Observation = {
    text: read.text,
    exists: read.exists,
    url: tab.url ?? url,
    title: tab.title ?? "",
  };
  return { id, ok: true, result: observation };
}

export async function listTabs(api: ObserveApi, id: string): Promise<HostReply> {
  const tabs: Tab[] = (await api.queryTabs())
    .filter((tab) => typeof tab.id === "number")
    .map((tab) => ({
      tabId: tab.id as number,
      url: tab.url ?? "",
      title: tab.title ?? "",
      active: tab.active ?? false,
      windowId: tab.windowId ?? -1,
    }));
  return { id, ok: true, result: tabs };
}
