/**
 * Matching a posted event against a session's armed event monitors (design.md §4.1), inside the
 * transaction that persisted it: exact type, every `match` field equal (the particular run), then
 * the condition on the observation `{type, payload, sessionId, source}`.
 */
import { canonicalJson, evaluateCondition, readPath } from "../../../shared/conditions.js";
import type { EventSource } from "../../../shared/schemas/sources.js";
import type { Tables } from "../store/engine.js";
import type { MonitorRecord } from "../store/monitors.js";
import { type EndingDeps, endInTx } from "./endings.js";

export function matchesRun(source: EventSource, type: string, payload: unknown): boolean {
  if (source.type !== type) return false;
  return Object.entries(source.match).every(
    ([path, value]) => canonicalJson(readPath(payload, path)) === canonicalJson(value),
  );
}

/** Offers one event to one armed monitor; returns true when it ended the monitor. */
export async function offerEvent(
  t: Tables,
  deps: EndingDeps,
  record: MonitorRecord,
  event: { type: string; payload: unknown; sessionId: string },
  now: number,
): Promise<boolean> {
  const source = record.source as EventSource;
  if (record.state !== "waiting" || !record.trigger || !matchesRun(source, event.type, event.payload)) return false;
  const observation = deps.shield.json({
    type: event.type,
    payload: event.payload,
    sessionId: event.sessionId,
    source: "api",
  });
  const evaluation = source.condition
    ? evaluateCondition(source.condition, observation, record.trigger.conditionState)
    : { verdict: "met" as const, state: record.trigger.conditionState };
  await t.monitors.recordCheck(record.uid, {
    at: now,
    nextDueAt: record.trigger.nextDueAt ?? now,
    observation,
    error: null,
    unrunnableStreak: 0,
    conditionState: evaluation.state,
  });
  if (evaluation.verdict !== "met") return false;
  await t.events.append(
    record.uid,
    deps.shield.text(`${event.type} ${JSON.stringify(event.payload)}`).slice(0, 2000),
    now,
  );
  const fresh = (await t.monitors.byUid(record.uid)) as MonitorRecord;
  return endInTx(
    t,
    deps,
    fresh,
    "met",
    `event ${event.type} arrived${source.condition ? " and its condition held" : ""}`,
    now,
  );
}

/**
 * An inbound event posted to a session: persisted, then offered to the session's armed event
 * monitors, inside the caller's transaction. Another session's monitors never see it. Returns the
 * event's id and the monitors it ended.
 */
export async function acceptEventInTx(
  t: Tables,
  deps: EndingDeps,
  sessionId: string,
  event: { type: string; payload: unknown },
  now: number,
): Promise<{ id: number; ended: MonitorRecord[] }> {
  const id = await t.inboundEvents.insert(sessionId, event.type, event.payload, now);
  const ended: MonitorRecord[] = [];
  for (const record of await t.monitors.list(sessionId)) {
    if (record.kind !== "event") continue;
    await t.monitors.lockForUpdate(record.uid);
    const fresh = await t.monitors.byUid(record.uid);
    if (fresh && (await offerEvent(t, deps, fresh, { ...event, sessionId }, now))) ended.push(fresh);
  }
  await t.inboundEvents.setMatched(
    id,
    ended.map((r) => r.id),
  );
  return { id, ended };
}

/** lookbackSeconds: events accepted shortly before arming are matched now, oldest first. */
export async function matchPastEventsInTx(
  t: Tables,
  deps: EndingDeps,
  record: MonitorRecord,
  lookbackSeconds: number,
  now: number,
): Promise<boolean> {
  const type = (record.source as EventSource).type;
  for (const event of await t.inboundEvents.since(record.sessionId, type, now - lookbackSeconds * 1000)) {
    const fresh = await t.monitors.byUid(record.uid);
    const offered = { type: event.type, payload: event.payload, sessionId: record.sessionId };
    if (fresh && (await offerEvent(t, deps, fresh, offered, now))) {
      await t.inboundEvents.setMatched(event.id, [record.id]);
      return true;
    }
  }
  return false;
}
