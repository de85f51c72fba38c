/**
 * The waitpoint view: what the API, the CLI and the side panel show of a waitpoint (its state in
 * waitpoint words, signals received, the hourly wake cap). Shielded on the way out.
 * Design: docs/design.md §5.
 */
import type { Stall, WaitpointView } from "../../../shared/schemas/views.js";
import type { ResolvedSettings } from "../base/config.js";
import { iso } from "../base/iso.js";
import type { Shield } from "../secrets/shield.js";
import type { Engine } from "../store/engine.js";
import type { MonitorRecord } from "../store/monitors.js";
import type { SignalRow, WaitpointRow } from "../store/waitpoints.js";
import { countTerminal, HOUR_MS } from "./barrier.js";
import { isActive } from "./states.js";

/**
 * A view lists a waitpoint's last 20 signals and counts the others (`earlierSignals`): one job's
 * flood of 18 KB reports made a single view 72 MB (issue #37 finding 5).
 */
export const SIGNALS_SHOWN = 20;

export interface WaitpointViewDeps {
  store: Engine;
  shield: Shield;
  now: () => number;
  settings: ResolvedSettings;
}

/**
 * An armed waitpoint's overdue heartbeat: no signal of any kind (or none since it was armed) for its
 * heartbeat timeout. Null without a timeout, once it ended, or while signals keep coming.
 */
export function stallOf(
  record: Pick<MonitorRecord, "state" | "createdAt">,
  heartbeatTimeoutMs: number | null,
  lastSignalAt: number | null,
  now: number,
): Stall | null {
  if (heartbeatTimeoutMs === null || !isActive(record.state)) return null;
  const since = (lastSignalAt ?? record.createdAt) + heartbeatTimeoutMs;
  if (since > now) return null;
  return {
    since: iso(since) as string,
    lastSignalAt: iso(lastSignalAt),
    heartbeatTimeoutSeconds: heartbeatTimeoutMs / 1000,
  };
}

/** What a waitpoint's view is made of, read one at a time (waitpointView) or for a page at once. */
export interface WaitpointParts {
  wp: WaitpointRow;
  signals: SignalRow[];
  /** Wakes it has sent, and those of the last hour. */
  wakesSent: number;
  wakesThisHour: number;
  /** Its device's connection now; null for this machine. */
  deviceState: WaitpointView["deviceState"];
}

export async function waitpointView(deps: WaitpointViewDeps, record: MonitorRecord): Promise<WaitpointView> {
  const { now } = deps;
  const { waitpoints, devices } = deps.store.tables;
  const wp = (await waitpoints.byUid(record.uid)) as WaitpointRow;
  const [signals, wakesSent, wakeTimes, device] = await Promise.all([
    waitpoints.signals(record.uid),
    waitpoints.wakeCount(record.uid),
    waitpoints.wakeTimesSince(record.uid, now() - HOUR_MS),
    wp.device === null ? undefined : devices.byName(wp.device),
  ]);
  return waitpointViewOf(deps, record, {
    wp,
    signals,
    wakesSent,
    wakesThisHour: wakeTimes.length,
    deviceState: wp.device === null ? null : (device?.state ?? "removed"),
  });
}

export function waitpointViewOf(
  deps: Omit<WaitpointViewDeps, "store">,
  record: MonitorRecord,
  parts: WaitpointParts,
): WaitpointView {
  const { now, settings } = deps;
  const { wp, signals, deviceState } = parts;
  const lastSignalAt = signals.reduce<number | null>(
    (max, s) => (max === null || s.receivedAt > max ? s.receivedAt : max),
    null,
  );
  const received = countTerminal(wp.members, signals);
  const total = wp.members ? wp.members.length : wp.quorum;
  const held =
    parts.wakesThisHour >= settings.waitpointMaxWakesPerHour && record.trigger?.nextDueAt
      ? record.trigger.nextDueAt
      : null;
  const state = isActive(record.state)
    ? "armed"
    : record.endingReason === "stopped"
      ? "cancelled"
      : record.endingReason === "timeout"
        ? "expired"
        : record.endingReason === "failed"
          ? "failed"
          : record.endingReason === "lost"
            ? "orphaned"
            : "resolved";
  return deps.shield.json({
    id: wp.id,
    sessionId: record.sessionId,
    label: record.name,
    intent: record.continuation ?? "",
    state,
    monitorState: record.state,
    members: wp.members,
    device: wp.device,
    deviceState,
    stall: stallOf(record, wp.heartbeatTimeoutMs, lastSignalAt, now()),
    lastSignalAt: iso(lastSignalAt),
    quorum: wp.quorum,
    failFast: wp.failFast,
    maxSignals: wp.maxSignals,
    received,
    heartbeats: signals.length - signals.filter((s) => s.status !== "progress").length + wp.progressDropped,
    progress: `${record.name} · ${received}/${total} received`,
    createdAt: iso(record.createdAt) as string,
    expiresAt: iso(record.trigger?.deadlineAt),
    endedAt: iso(record.endingAt),
    wakesSent: parts.wakesSent,
    wakesThisHour: parts.wakesThisHour,
    maxWakesPerHour: settings.waitpointMaxWakesPerHour,
    heldUntil: iso(held),
    earlierSignals: Math.max(0, signals.length - SIGNALS_SHOWN) + wp.progressDropped,
    signals: signals.slice(-SIGNALS_SHOWN).map((s) => ({
      status: s.status,
      member: s.member,
      message: s.message,
      data: s.data,
      via: s.via,
      at: iso(s.receivedAt) as string,
    })),
  });
}

/** The views of many waitpoints from four statements in all (the panel's page), by monitor uid. */
export async function waitpointViews(
  deps: WaitpointViewDeps,
  records: readonly MonitorRecord[],
): Promise<Map<number, WaitpointView>> {
  const { tables } = deps.store;
  const uids = records.map((record) => record.uid);
  const [rows, signals, wakes, all] = await Promise.all([
    tables.waitpoints.byUids(uids),
    tables.waitpoints.signalsOf(uids),
    tables.wakes.countsOfMonitors(uids, deps.now() - HOUR_MS),
    tables.devices.all(),
  ]);
  const devices = new Map(all.map((device) => [device.name, device.state]));
  const views = new Map<number, WaitpointView>();
  for (const record of records) {
    const wp = rows.get(record.uid);
    if (!wp) continue;
    const counts = wakes.get(record.uid);
    views.set(
      record.uid,
      waitpointViewOf(deps, record, {
        wp,
        signals: signals.get(record.uid) ?? [],
        wakesSent: counts?.n ?? 0,
        wakesThisHour: counts?.recent ?? 0,
        deviceState: wp.device === null ? null : (devices.get(wp.device) ?? "removed"),
      }),
    );
  }
  return views;
}
