/**
 * The one place a monitor ends and the one place a wake is written (design.md §2, §6). Both run inside
 * the caller's transaction.
 */
import type { EndingReason } from "../../../shared/schemas/views.js";
import type { Logger } from "../base/log.js";
import type { Shield } from "../secrets/shield.js";
import type { Engine, Tables } from "../store/engine.js";
import type { MonitorRecord } from "../store/monitors.js";
import { isActive, nextState, type StateChange } from "./states.js";
import { wakePayload, wakeText } from "./wake-text.js";

export interface EndingDeps {
  store: Engine;
  shield: Shield;
  log: Logger;
  /** What is being watched, in words (the probe kind's describe). */
  describe: (record: MonitorRecord) => string;
}

/**
 * Ends an armed monitor with one reason: the state moves through the transition table, the ending
 * is written only while none exists, the trigger is deleted, and every ending but an explicit stop
 * writes the one ending wake. Returns false when the monitor had already ended.
 */
export async function endInTx(
  t: Tables,
  deps: EndingDeps,
  record: MonitorRecord,
  reason: EndingReason,
  detail: string,
  now: number,
): Promise<boolean> {
  if (!isActive(record.state)) return false;
  const event: StateChange = reason === "stopped" ? "cancel" : "end";
  const to = nextState(record.state, event);
  if (to === undefined) return false;
  const shownDetail = deps.shield.text(detail);
  if (!(await t.monitors.end(record.uid, record.state, to, reason, shownDetail, now))) return false;
  deps.log.info(`monitor ${record.sessionId}/${record.id} ended: ${reason}`, { detail: shownDetail });
  if (reason !== "stopped") {
    const ended = (await t.monitors.byUid(record.uid)) as MonitorRecord;
    await insertWake(t, deps, ended, reason, `end:${record.uid}`, shownDetail, now);
  }
  return true;
}

/** Writes a wake carrying the events since the monitor's last wake (at most 20 shown). */
export async function insertWake(
  t: Tables,
  deps: EndingDeps,
  record: MonitorRecord,
  reason: EndingReason | "events" | "stalled",
  dedupeKey: string,
  detail: string | null,
  now: number,
): Promise<number | null> {
  const { shield } = deps;
  const facts = {
    sessionId: record.sessionId,
    monitor: {
      id: record.id,
      name: record.name,
      kind: record.kind,
      description: shield.text(deps.describe(record)),
    },
    reason,
    armedAt: record.createdAt,
    at: now,
    detail,
    lastObservation: record.lastObservation,
    lastError: record.lastError,
    continuation: record.continuation,
    events: await t.events.since(record.uid, record.wakedSeq, 20),
    pendingEventCount: record.eventCount - record.wakedSeq,
  };
  const wakeNumber = await t.wakes.insert({
    sessionId: record.sessionId,
    monitorUid: record.uid,
    dedupeKey,
    kind: reason === "events" || reason === "stalled" ? "events" : "ending",
    text: shield.text(wakeText(facts)),
    payload: shield.json(wakePayload(facts)),
    createdAt: now,
  });
  if (wakeNumber !== null) await t.monitors.setWakedSeq(record.uid, record.eventCount);
  return wakeNumber;
}
