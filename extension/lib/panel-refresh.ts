/**
 * The side panel's data: the monitor list (under the panel's filters) and the open check logs.
 * A "changed" naming one session fetches that session alone and folds it in (lib/panel-merge.ts);
 * one naming none, or a daemon that cannot answer per session, fetches the whole list. Bursts are
 * coalesced: pushes within COALESCE_MS make one fetch, a stream of them one fetch per MIN_GAP_MS,
 * and fetches never overlap (one asked for while another runs happens once, right after it). Each fetch ends in a render. A failed fetch
 * keeps the last list and says so.
 * Design: docs/design.md §7.
 */
import type { PanelItem, PanelList } from "../../shared/schemas/native-messages";
import type { CheckEntry } from "../../shared/schemas/views";
import { listQuery } from "./panel-filter";
import { canMerge, mergeSession } from "./panel-merge";
import type { PanelPush } from "./panel-port";
import type { PanelRequest } from "./panel-protocol";
import type { PanelState } from "./panel-state";

export const COALESCE_MS = 150;
/**
 * While changes keep coming, a fetch starts at most this often after the last one began: each ends
 * in a render, and a render's paint, not the fetch, is most of a change's cost in the page
 * (bench/panel-browser.js at 5 changes/s: 13–18 ms of main-thread work a change with a render each,
 * 8 ms with at most two renders a second). The first change after a quiet spell still shows after
 * COALESCE_MS.
 */
export const MIN_GAP_MS = 500;
/** The most items the panel shows (the rest: filters, search, or a session's own page). */
export const PAGE = 500;
/**
 * The most items one request asks for: a page of 500 is asked for in requests of at most 200, so
 * that no single request holds the daemon's event loop for long (bench/panel.js: 200 items cost the
 * daemon about 7 ms, 500 about 18 ms, and the daemon answers nothing else meanwhile).
 */
export const STEP = 200;
/** The first list a panel asks for: what fills the screen, before the whole page. */
export const FIRST_PAGE = 50;

export interface PanelDataDeps {
  state: PanelState;
  request(body: PanelRequest): Promise<unknown>;
  render(): void;
}

export interface PanelData {
  /** Fetches the whole list (and every open check log) again, then renders. */
  refresh(): Promise<void>;
  /** Fetches one monitor's check log ("sessionId/monitorId"); on failure the log closes. */
  loadChecks(key: string): Promise<void>;
  /** A push from the background: the link state (refresh once connected) or "changed". */
  onPush(push: PanelPush): void;
  /** How many `list` requests were sent, whole and per session (the browser suite reads it). */
  readonly fetches: { whole: number; session: number };
  busy(): { phase: string; running: boolean; wanted: string | string[]; timer: boolean };
}

const itemKey = (item: PanelItem) => `${item.session.id}/${item.monitor.id}`;

export function createPanelData({ state, request, render }: PanelDataDeps): PanelData {
  let running: Promise<void> | null = null;
  /** What the next fetch covers: sessions by id, or everything ("all"). */
  let wanted: Set<string> | "all" | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const fetches = { whole: 0, session: 0 };
  /** When the last fetch began (Date.now()), for MIN_GAP_MS. */
  let lastStart = Number.NEGATIVE_INFINITY;
  let phase = "idle";

  async function loadChecks(key: string) {
    const [sessionId, monitorId] = key.split("/") as [string, string];
    try {
      state.checks.set(key, (await request({ type: "checks", sessionId, monitorId })) as CheckEntry[]);
    } catch {
      state.checks.delete(key);
    }
  }

  const ask = (extra: { session?: string; offset: number; limit: number }) =>
    request({ type: "list", ...listQuery(state.filters), ...extra }) as Promise<PanelList>;

  /**
   * The first `limit` items (a session's, with `session`), in requests of at most STEP. The counts,
   * sessions and Needs you come from the last answer (the newest). Should the list move between two
   * requests, an item asked for twice is kept once; one that moved past the boundary is missing
   * until the next change, whose push fetches again.
   */
  async function list(extra: { session?: string; limit?: number } = {}): Promise<PanelList> {
    const limit = extra.limit ?? PAGE;
    let reply = await ask({ ...extra, offset: 0, limit: Math.min(STEP, limit) });
    const items = [...reply.items];
    const seen = new Set(items.map(itemKey));
    let offset = items.length;
    while (offset < Math.min(limit, reply.total) && reply.items.length > 0) {
      reply = await ask({ ...extra, offset, limit: Math.min(STEP, limit - offset) });
      offset += reply.items.length;
      for (const item of reply.items) {
        const key = itemKey(item);
        if (seen.has(key)) continue;
        seen.add(key);
        items.push(item);
      }
    }
    return { ...reply, offset: 0, items };
  }

  /** A list came: the error it ends is cleared, the open check logs are fetched again. */
  async function done() {
    if (state.listFailed) state.error = null;
    state.listFailed = false;
    phase = "checks";
    await Promise.all([...state.checks.keys()].map(loadChecks));
  }

  async function fetchNow(scope: Set<string> | "all") {
    lastStart = Date.now();
    try {
      phase = "list";
      const current = state.list;
      if (scope === "all" || !canMerge(current)) {
        fetches.whole++;
        if (current === null) {
          // The first list: a screenful first, drawn at once, then the whole page (bench/panel-browser.js
          // reads the marks; once per page, as marks are kept for its life).
          performance.mark("vigil:first-list-asked");
          state.list = await list({ limit: FIRST_PAGE });
          performance.mark("vigil:first-list-came");
          if (state.list.total > state.list.items.length) {
            render();
            fetches.whole++;
            state.list = await list();
          }
        } else state.list = await list();
      } else {
        let next = current as PanelList;
        for (const sessionId of scope) {
          // Another session is filtered for: this one's change is not on screen.
          if (state.filters.session && state.filters.session !== sessionId) continue;
          fetches.session++;
          next = mergeSession(next, sessionId, await list({ session: sessionId }));
        }
        state.list = next;
      }
      await done();
    } catch (error) {
      state.listFailed = true;
      state.error = `The list could not be fetched: ${(error as Error).message}`;
    }
    phase = "render";
    render();
    phase = "done";
  }

  /** Runs the wanted fetch once the running one is done. */
  async function drain() {
    try {
      while (wanted) {
        const scope = wanted;
        wanted = null;
        await fetchNow(scope);
      }
    } finally {
      // Even if a render threw: the next change fetches again instead of waiting on this one.
      running = null;
    }
  }

  function want(scope: string | "all") {
    if (scope === "all" || wanted === "all") wanted = "all";
    else {
      wanted ??= new Set();
      wanted.add(scope);
    }
  }

  /**
   * Starts draining what is wanted unless a drain runs (it takes it up). Never starts one with
   * nothing wanted: such a drain would end at once, before `running` is set, and leave it set.
   */
  function kick(): Promise<void> {
    if (!running && wanted) running = drain();
    return running ?? Promise.resolve();
  }

  function refresh(): Promise<void> {
    want("all");
    if (timer) clearTimeout(timer);
    timer = null;
    return kick();
  }

  function onPush(push: PanelPush) {
    if (push.type === "state") {
      state.link = push.state;
      if (push.state.status === "connected") void refresh();
      else render();
      return;
    }
    if (push.type !== "changed") return;
    want(push.sessionId ?? "all");
    timer ??= setTimeout(
      () => {
        timer = null;
        void kick();
      },
      Math.max(COALESCE_MS, lastStart + MIN_GAP_MS - Date.now()),
    );
  }

  /** What the refresh is doing (the browser suite prints it when a wait fails). */
  const busy = () => ({
    phase,
    running: running !== null,
    wanted: wanted === "all" ? "all" : [...(wanted ?? [])],
    timer: timer !== null,
  });
  return { refresh, loadChecks, onPush, fetches, busy };
}
