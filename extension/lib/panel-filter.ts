/**
 * The panel's filters (All / Needs you / Active / Ended, session, kind, device, host, search) and the
 * counts beside them. The daemon filters and counts (GET /api/panel's query, issue #26); an answer
 * without `counts` comes from an older daemon that ignored the query, so the same filters are
 * applied here instead. Pure.
 * Design: docs/design.md §7.
 */
import { clearStanding } from "../../shared/clear-ended";
import type {
  NativeRequest,
  PanelCounts,
  PanelFilter,
  PanelItem,
  PanelKind,
  PanelList,
} from "../../shared/schemas/native-messages";
import type { MonitorState } from "../../shared/schemas/views";
import { itemNeedsYou } from "./panel-attention";

export interface Filters {
  filter: PanelFilter;
  session: string;
  kind: PanelKind | "";
  device: string;
  /** Team mode: one host's sessions (its name). */
  host: string;
  q: string;
}

/** The filter fields of a `list` request. */
export type NativeListFields = Partial<
  Pick<Extract<NativeRequest, { type: "list" }>, "filter" | "session" | "kind" | "device" | "host" | "q">
>;

export const NO_FILTERS: Filters = { filter: "all", session: "", kind: "", device: "", host: "", q: "" };

/** The `list` request's filter fields: only those set. */
export function listQuery(filters: Filters): NativeListFields {
  const query: NativeListFields = {};
  if (filters.filter !== "all") query.filter = filters.filter;
  if (filters.session) query.session = filters.session;
  if (filters.kind) query.kind = filters.kind;
  if (filters.device) query.device = filters.device;
  if (filters.host) query.host = filters.host;
  const q = filters.q.trim();
  if (q) query.q = q;
  return query;
}

export const isActive = (state: MonitorState): boolean => state === "waiting" || state === "paused";

/** The kind as the panel names it: a `signal` monitor is a waitpoint. */
export const kindOf = (item: PanelItem): PanelKind =>
  item.monitor.kind === "signal" ? "waitpoint" : (item.monitor.kind as PanelKind);

/** The device an item waits on (a waitpoint's spool device), or null for this machine. */
export const deviceOf = (item: PanelItem): string | null => item.waitpoint?.device ?? null;

/** Whether Clear ended clears this row (the daemon's rule, shared/clear-ended.ts). */
export const isClearable = (item: PanelItem): boolean =>
  clearStanding(item.monitor.state, item.monitor.delivery ? [item.monitor.delivery.state] : []) === "clears";

/**
 * What the search box searches (a daemon before issue #26; the daemon's own search is
 * store/panel.ts's): what the rows show — names, ids, labels, the last event and error, a
 * waitpoint's intent and signal messages — not what they hide (a command).
 */
function searchText(item: PanelItem): string {
  const { monitor, session, waitpoint } = item;
  return [
    monitor.name,
    monitor.id,
    session.label,
    session.id,
    monitor.lastEvent,
    monitor.lastError,
    waitpoint?.label,
    waitpoint?.intent,
    ...(waitpoint?.signals.map((s) => s.message) ?? []),
  ]
    .filter(Boolean)
    .join("\n")
    .toLowerCase();
}

/** Everything but the tab (`filter`): session, kind, device, search. */
function matchesScope(item: PanelItem, filters: Filters): boolean {
  if (filters.session && item.session.id !== filters.session) return false;
  if (filters.kind && kindOf(item) !== filters.kind) return false;
  if (filters.device && deviceOf(item) !== filters.device) return false;
  const q = filters.q.trim().toLowerCase();
  return !q || searchText(item).includes(q);
}

function inTab(item: PanelItem, filter: PanelFilter): boolean {
  if (filter === "needs") return itemNeedsYou(item);
  if (filter === "active") return isActive(item.monitor.state);
  if (filter === "ended") return !isActive(item.monitor.state);
  return true;
}

export function countItems(items: PanelItem[]): PanelCounts {
  const counts = { all: 0, needs: 0, active: 0, ended: 0 };
  for (const item of items) {
    counts.all++;
    if (itemNeedsYou(item)) counts.needs++;
    if (isActive(item.monitor.state)) counts.active++;
    else counts.ended++;
  }
  return counts;
}

export interface FilteredList {
  items: PanelItem[];
  counts: PanelCounts;
  sessions: Array<{ id: string; label: string | null; counts: PanelCounts; host?: string | null }>;
}

/** The items to show, the tab counts and the sessions: the daemon's when it filtered, else worked out here. */
export function applyFilters(list: PanelList, filters: Filters): FilteredList {
  if (list.counts && list.sessions) return { items: list.items, counts: list.counts, sessions: list.sessions };
  const scoped = list.items.filter((item) => matchesScope(item, filters));
  const bySession = new Map<string, { id: string; label: string | null; items: PanelItem[] }>();
  for (const item of list.items) {
    const entry = bySession.get(item.session.id) ?? { id: item.session.id, label: item.session.label, items: [] };
    entry.items.push(item);
    bySession.set(item.session.id, entry);
  }
  return {
    items: scoped.filter((item) => inTab(item, filters.filter)),
    counts: countItems(scoped),
    sessions: [...bySession.values()].map(({ id, label, items }) => ({ id, label, counts: countItems(items) })),
  };
}
