/**
 * A waitpoint's firing (design.md §5): from the signals pending, wake now, schedule the wake, or
 * wait for more; and the stall a heartbeat timeout makes of silence. Inside the caller's
 * transaction (a signal's, or the scheduler's when the trigger is due).
 */
import type { ResolvedSettings } from "../base/config.js";
import { iso } from "../base/iso.js";
import type { Tables } from "../store/engine.js";
import type { MonitorRecord } from "../store/monitors.js";
import type { SignalRow, WaitpointRow } from "../store/waitpoints.js";
import { type BarrierSignal, countTerminal, decide, HOUR_MS } from "./barrier.js";
import { type EndingDeps, endInTx, insertWake } from "./endings.js";

export interface FiringDeps extends EndingDeps {
  settings: ResolvedSettings;
}

/** Decides from what is pending: wake now, schedule the wake, or wait for more signals. */
export async function settleInTx(t: Tables, deps: FiringDeps, record: MonitorRecord, now: number): Promise<void> {
  const wp = (await t.waitpoints.byUid(record.uid)) as WaitpointRow;
  const pending = await t.waitpoints.terminalSignalsAfter(record.uid, record.wakedSeq);
  const decision = decide({
    members: wp.members,
    quorum: wp.quorum,
    failFast: wp.failFast,
    maxSignals: wp.maxSignals,
    pending: pending.map(toBarrier),
    wakesSent: await t.waitpoints.wakeCount(record.uid),
    wakeTimesLastHour: await t.waitpoints.wakeTimesSince(record.uid, now - HOUR_MS),
    maxWakesPerHour: deps.settings.waitpointMaxWakesPerHour,
  });
  const stallAt = await stallAtOf(t, record, wp);
  if (decision.fire && decision.at <= now) {
    const detail = summary(wp, pending);
    if (decision.final) {
      await endInTx(t, deps, record, decision.reason, detail, now);
      return;
    }
    await insertWake(t, deps, record, "events", `signal:${record.uid}:${record.eventCount}`, detail, now);
  }
  if (stallAt !== null && stallAt <= now) {
    await stall(t, deps, record, wp, now);
    return;
  }
  const times = [decision.fire && decision.at > now ? decision.at : null, stallAt].filter(
    (t): t is number => t !== null,
  );
  await t.monitors.setNextDue(record.uid, times.length > 0 ? Math.min(...times) : null);
}

/** When silence becomes a stall: the last signal of any kind (or arming) plus the heartbeat timeout. */
async function stallAtOf(t: Tables, record: MonitorRecord, wp: WaitpointRow): Promise<number | null> {
  if (wp.heartbeatTimeoutMs === null) return null;
  const last = (await t.waitpoints.lastSignalAt(record.uid)) ?? record.createdAt;
  return wp.stallNotifiedFor === last ? null : last + wp.heartbeatTimeoutMs;
}

/** "Stalled": the owner hears once per silence; fail_fast ends the waitpoint, else it stays armed. */
async function stall(t: Tables, deps: FiringDeps, record: MonitorRecord, wp: WaitpointRow, now: number): Promise<void> {
  const last = await t.waitpoints.lastSignalAt(record.uid);
  const since =
    last === null ? `since it was armed at ${iso(record.createdAt)}` : `since the last signal at ${iso(last)}`;
  const detail = `stalled: no signal of any kind ${since} (heartbeat timeout ${Math.round((wp.heartbeatTimeoutMs ?? 0) / 1000)}s)`;
  await t.waitpoints.setStallNotified(record.uid, last ?? record.createdAt);
  await t.monitors.setNextDue(record.uid, null);
  if (wp.failFast) await endInTx(t, deps, record, "failed", detail, now);
  else await insertWake(t, deps, record, "stalled", `stall:${record.uid}:${last ?? record.createdAt}`, detail, now);
}

export const toBarrier = (s: SignalRow): BarrierSignal => ({
  status: s.status,
  member: s.member,
  receivedAt: s.receivedAt,
});

function summary(wp: WaitpointRow, pending: SignalRow[]): string {
  const terminal = pending.filter((s) => s.status !== "progress");
  const parts = terminal.map((s) => `${s.member ? `${s.member} ` : ""}${s.status}`);
  const counted = countTerminal(wp.members, terminal);
  const of = wp.members
    ? `${counted} of ${wp.members.length} members reported`
    : `${counted} signal${counted === 1 ? "" : "s"} arrived`;
  return `${of} (quorum ${wp.quorum}${wp.failFast ? ", fail fast" : ""}): ${parts.join(", ")}`;
}
