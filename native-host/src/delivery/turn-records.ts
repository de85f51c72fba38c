/**
 * What a finished turn writes: each wake delivered, requeued with backoff or left for review, and
 * an ended monitor's state kept in step with its ending wake. Runs inside the caller's transaction.
 * Design: docs/design.md §6.
 */
import { INTERRUPTED } from "../core/review-causes.js";
import { nextState, type StateChange } from "../core/states.js";
import type { Shield } from "../secrets/shield.js";
import type { Tables } from "../store/engine.js";
import type { RawWake } from "../store/wakes.js";
import type { DeliveryOutcome } from "./adapters/adapter.js";
import { type RetryPolicy, retryDelayMs } from "./backoff.js";

/** Keeps an ended monitor's state in step with its ending wake (events wakes leave it alone). */
export async function moveMonitors(t: Tables, rows: RawWake[], event: StateChange): Promise<void> {
  for (const row of rows) {
    if (row.kind !== "ending") continue;
    await t.monitors.lockForUpdate(row.monitor_uid);
    const record = await t.monitors.byUid(row.monitor_uid);
    const to = record && nextState(record.state, event);
    if (record && to) await t.monitors.setState(record.uid, record.state, to);
  }
}

/** Records a pushed turn's outcome on each of its wakes: delivered, tried again later, or review. */
export async function recordTurnOutcome(
  t: Tables,
  rows: RawWake[],
  outcome: DeliveryOutcome,
  context: { now: number; policy: RetryPolicy; shield: Shield },
): Promise<void> {
  const { now, policy, shield } = context;
  const output = outcome.output === null ? null : shield.text(outcome.output);
  for (const row of rows) {
    if (outcome.ok) {
      // Recorded after its lease ran out (the database away until now): delivered after all, as it was.
      const late = async (turn: number) =>
        t.wakes.markDeliveredLate(row.id, turn, INTERRUPTED, { now, via: outcome.via, output });
      if (
        (await t.wakes.markDelivered(row.id, now, outcome.via, output)) ||
        (row.turn !== null && (await late(row.turn)))
      )
        await moveMonitors(t, [row], "delivered");
      continue;
    }
    const error = shield.text(outcome.error);
    const attempts = row.attempts; // the claim counted this attempt
    if (outcome.retry && attempts < policy.maxAttempts) {
      const at = now + retryDelayMs(attempts, policy);
      if (await t.wakes.markFailed(row.id, at, error, output)) await moveMonitors(t, [row], "requeue");
    } else {
      const why = outcome.retry ? `${error} (gave up after ${attempts} attempts)` : error;
      if (await t.wakes.markReview(row.id, why, output)) await moveMonitors(t, [row], "review");
    }
  }
}
