/**
 * `GET /api/panel` (#26, design.md §7): one page of the side panel's list under its filters, the
 * counts per filter and session, and the whole "Needs you" list. The store filters, counts and pages
 * in SQL; views are built only for the monitors on the page, and carry only what the list shows.
 */
import type {
  CheckLoadView,
  DeviceView,
  MonitorView,
  PanelCounts,
  PanelPage,
  PanelRow,
  PanelSession,
  WaitpointView,
} from "../../../shared/schemas/views.js";
import { ValidationError } from "../base/errors.js";
import { type Attention, attentionList, FAILED_WAITPOINT_SHOWN_MS } from "../core/attention.js";
import type { Shield } from "../secrets/shield.js";
import type { Engine as Store } from "../store/engine.js";
import type { HostBrief } from "../store/hosts.js";
import type { MonitorRecord } from "../store/monitors.js";
import type { ListFilter, PanelFilter } from "../store/panel.js";
import type { SessionRow } from "../store/sessions.js";
import { wakeNotTakenMs } from "./attention-clock.js";
import { panelHosts } from "./host.js";
import type { Queries } from "./queries.js";

/** The longest observation, event or signal text a list item carries. */
export const EXCERPT_CHARS = 300;

/** Signals a waitpoint's list item carries (its latest). */
export const LIST_SIGNALS = 20;

export interface PanelQuery extends PanelFilter {
  filter: ListFilter;
  offset: number;
  limit: number;
  /** Team mode: only the sessions made on the host of this name. */
  host: string | null;
}

export interface PanelDeps {
  store: Store;
  queries: Queries;
  /** The views of a page's waitpoints, by monitor uid (read together). */
  waitpointViews: (records: readonly MonitorRecord[]) => Promise<Map<number, WaitpointView>>;
  devices: () => Promise<DeviceView[]> | DeviceView[];
  checks: () => Promise<CheckLoadView> | CheckLoadView;
  shield: Shield;
  now: () => number;
  /** The id of the host that answers (the panel marks it). */
  self: string;
}

/** Text cut to `max` characters, the cut marked with "…"; a value that is not text, as JSON. */
export function excerpt(value: unknown, max = EXCERPT_CHARS): string | null {
  if (value === null || value === undefined) return null;
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

const ZERO: PanelCounts = { all: 0, needs: 0, active: 0, ended: 0 };

function add(a: PanelCounts, b: PanelCounts): PanelCounts {
  return { all: a.all + b.all, needs: a.needs + b.needs, active: a.active + b.active, ended: a.ended + b.ended };
}

function listMonitor(view: MonitorView): MonitorView {
  return { ...view, lastObservation: excerpt(view.lastObservation), lastEvent: excerpt(view.lastEvent) };
}

function listWaitpoint(view: WaitpointView): WaitpointView {
  return {
    ...view,
    signals: view.signals.slice(-LIST_SIGNALS).map((signal) => ({
      ...signal,
      message: excerpt(signal.message),
      data: excerpt(signal.data),
    })),
  };
}

/** The late checks of monitors that still exist and are not cleared (a deleted one is named nowhere). */
async function existingLate(store: Store, checks: CheckLoadView): Promise<CheckLoadView> {
  const records = await Promise.all(
    checks.late.map((entry) => store.tables.monitors.get(entry.sessionId, entry.monitorId)),
  );
  const late = checks.late.filter((_, i) => {
    const record = records[i];
    return record !== undefined && !record.cleared;
  });
  if (late.length === checks.late.length) return checks;
  return { ...checks, late, overloaded: checks.waitingForSlot > 0 || late.length > 0 };
}

/** A list filter or search naming at most this many monitors is paged from one look-up of them all. */
export const LISTED_AT_ONCE = 2000;

/**
 * The page's monitors: the sessions are walked in order with their counts, and only those the page
 * reaches are asked for their part (each a look-up on the session index, no sort of every monitor).
 * Needs you and a narrow search name few monitors, spread over many sessions: those are read at once
 * and paged here, in the same order.
 */
async function pageUids(
  store: Store,
  query: PanelQuery,
  sessions: PanelSession[],
  needs: readonly number[],
  found: readonly number[] | null,
): Promise<number[]> {
  const { panel } = store.tables;
  const named = Math.min(
    query.filter === "needs" ? needs.length : Number.POSITIVE_INFINITY,
    found?.length ?? Number.POSITIVE_INFINITY,
  );
  if (named <= LISTED_AT_ONCE) {
    const listed = await panel.listed(query, query.filter, needs, found);
    return sessions
      .filter((session) => query.sessionId === null || session.id === query.sessionId)
      .flatMap((session) => listed.get(session.id) ?? [])
      .slice(query.offset, query.offset + query.limit);
  }
  const uids: number[] = [];
  let skip = query.offset;
  for (const session of sessions) {
    if (uids.length >= query.limit) break;
    if (query.sessionId !== null && session.id !== query.sessionId) continue;
    const size = session.counts[query.filter];
    if (skip >= size) {
      skip -= size;
      continue;
    }
    uids.push(
      ...(await panel.sessionPage(session.id, query, query.filter, needs, found, skip, query.limit - uids.length)),
    );
    skip = 0;
  }
  return uids;
}

/** The page's rows: each view built from parts read for the whole page at once. */
async function listItems(
  deps: PanelDeps,
  records: MonitorRecord[],
  sessions: SessionRow[],
  hosts: ReadonlyMap<string, HostBrief>,
): Promise<PanelRow[]> {
  const uids = records.map((record) => record.uid);
  const [latest, waitpoints] = await Promise.all([
    deps.store.tables.wakes.latestOfMonitors(uids),
    deps.waitpointViews(records.filter((record) => record.kind === "signal")),
  ]);
  const labels = new Map(sessions.map((session) => [session.id, session.label]));
  const adapters = new Map(sessions.map((session) => [session.id, session.adapter.kind]));
  return records.map((record): PanelRow => {
    const session = { id: record.sessionId, label: labels.get(record.sessionId) ?? null };
    const waitpoint = waitpoints.get(record.uid);
    const stall = waitpoint?.stall ?? null;
    const view = deps.queries.viewOf(record, latest.get(record.uid), adapters.get(record.sessionId), stall, hosts);
    const monitor = listMonitor(view);
    return waitpoint ? { session, monitor, waitpoint: listWaitpoint(waitpoint) } : { session, monitor };
  });
}

/** The "Needs you" list at `now`, with the devices and check load it was made from (the panel and the notifier read it). */
export async function needsYou(
  deps: Pick<PanelDeps, "store" | "devices" | "checks" | "shield">,
  now: number,
): Promise<{ attention: Attention; devices: DeviceView[]; checks: CheckLoadView }> {
  const { store, shield } = deps;
  const { panel } = store.tables;
  const devices = await deps.devices();
  const checks = await existingLate(store, await deps.checks());
  const [wakes, monitors] = await Promise.all([
    panel.attentionWakes(now - wakeNotTakenMs()),
    panel.attentionMonitors(now - FAILED_WAITPOINT_SHOWN_MS),
  ]);
  const attention = attentionList({ now, wakes, monitors, devices, checks, shield: (text) => shield.text(text) });
  return { attention, devices, checks };
}

export async function panelPage(deps: PanelDeps, query: PanelQuery): Promise<PanelPage> {
  const { store } = deps;
  const { panel } = store.tables;
  const now = deps.now();
  const { attention, devices, checks } = await needsYou(deps, now);
  const needs = attention.monitorUids;
  const found = query.q === null ? null : await panel.search(query.q);
  const [perSession, allSessions, hostRows] = await Promise.all([
    panel.counts(query, needs, found),
    store.tables.sessions.list(),
    store.tables.hosts.brief(),
  ]);
  const hostId = query.host === null ? null : hostNamed(hostRows, query.host).id;
  const sessionRows = hostId === null ? allSessions : allSessions.filter((session) => session.hostId === hostId);
  const sessions = sessionRows.map((session) => ({
    id: session.id,
    label: session.label,
    counts: perSession.get(session.id) ?? ZERO,
    host: session.hostId,
  }));
  const counts =
    query.sessionId === null
      ? sessions.map((session) => session.counts).reduce(add, ZERO)
      : (sessions.find((session) => session.id === query.sessionId)?.counts ?? ZERO);
  const records = await store.tables.monitors.byUids(await pageUids(store, query, sessions, needs, found));
  const hosts = new Map(hostRows.map((host) => [host.id, host]));
  const items = await listItems(deps, records, sessionRows, hosts);
  return {
    total: counts[query.filter],
    offset: query.offset,
    items,
    devices,
    checks,
    counts,
    sessions,
    hosts: panelHosts(hostRows, deps.self, now),
    attention: attention.items,
  };
}

/** The host a filter names; a name no host of this database has is a 400 that lists them. */
function hostNamed(hosts: readonly HostBrief[], name: string): HostBrief {
  const host = hosts.find((h) => h.name === name);
  if (!host) {
    const names = hosts.map((h) => h.name).join(", ");
    throw new ValidationError(
      `host: Expected the name of a host of this database (${names}), got ${JSON.stringify(name)}`,
    );
  }
  return host;
}
