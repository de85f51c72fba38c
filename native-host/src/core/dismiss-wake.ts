/**
 * Dismiss: a person sets aside a wake that needs review or whose delivery is being retried (#26). In
 * one transaction the wake is cancelled for good (never delivered; `dismissed_at` says who), its
 * monitor moves through the state table, and the monitor's event log records it.
 * Design: docs/design.md §6, §7.
 */
import type { WakeView } from "../../../shared/schemas/views.js";
import { ConflictError, NotFoundError } from "../base/errors.js";
import type { Engine } from "../store/engine.js";
import { parseWakeId, type RawWake, toWakeView } from "../store/wakes.js";
import { nextState } from "./states.js";

/** What a wake that cannot be dismissed is, in words. */
function standing(row: RawWake): string {
  if (row.dismissed_at !== null) return "already dismissed";
  if (row.state === "ready") return "ready and not yet failed (nothing to set aside)";
  if (row.state === "delivering") return "being delivered";
  return row.state.replace("_", " ");
}

export async function dismissWake(store: Engine, sessionId: string, wakeId: string, now: number): Promise<WakeView> {
  const number = parseWakeId(wakeId);
  const row = number === null ? undefined : await store.tables.wakes.get(sessionId, number);
  if (!row || number === null) throw new NotFoundError(`Unknown wake ${wakeId} in session ${sessionId}`);
  const dismissed = await store.tx(async (t) => {
    await t.monitors.lockForUpdate(row.monitor_uid);
    if (!(await t.wakes.dismiss(number, now))) return false;
    const record = await t.monitors.byUid(row.monitor_uid);
    if (!record) return true;
    const to = row.kind === "ending" ? nextState(record.state, "dismiss") : undefined;
    if (to) await t.monitors.setState(record.uid, record.state, to);
    const seq = await t.events.append(record.uid, `${wakeId} dismissed by the person: it will not be delivered`, now);
    // The note is not news for the agent: a later wake of a still-armed monitor does not carry it.
    if (record.wakedSeq === seq - 1) await t.monitors.setWakedSeq(record.uid, seq);
    return true;
  });
  if (!dismissed) {
    throw new ConflictError(
      `Only a wake that needs review or whose delivery is being retried can be dismissed; ${wakeId} is ${standing(row)}`,
    );
  }
  return toWakeView((await store.tables.wakes.get(sessionId, number)) as RawWake);
}
