/**
 * Pause, resume and cancel asked for by the owner, through the state table, in one transaction:
 * cancel ends the monitor as "stopped" (no wake) and drops its ready wakes; pause keeps the
 * deadline and stops checks; resume checks at once. A delivery already started cannot be cancelled.
 * Design: docs/design.md §4.3.
 */
import type { ControlAction } from "../../../shared/schemas/inputs.js";
import { ConflictError } from "../base/errors.js";
import type { Engine } from "../store/engine.js";
import type { MonitorRecord } from "../store/monitors.js";
import { isActive, nextState, TransitionError } from "./states.js";

export async function controlMonitor(
  store: Engine,
  record: MonitorRecord,
  action: ControlAction,
  now: number,
): Promise<void> {
  const to = nextState(record.state, action);
  if (record.state === "continuing" && action === "cancel") {
    throw new ConflictError(
      `Cannot cancel ${record.id}: its wake is being delivered, and a delivery already started cannot be undone`,
    );
  }
  if (to === undefined) throw new ConflictError(new TransitionError(record.state, action).message);
  const changedMeanwhile = () => new ConflictError(`Monitor ${record.id} changed state meanwhile; try again`);
  if (action === "cancel") {
    await store.tx(async (t) => {
      await t.monitors.lockForUpdate(record.uid);
      if (isActive(record.state)) {
        await t.monitors.end(record.uid, record.state, to, "stopped", "cancelled by request", now);
      } else if (!(await t.monitors.setState(record.uid, record.state, to))) {
        throw changedMeanwhile();
      }
      await t.wakes.cancelReady(record.uid);
    });
    return;
  }
  if (record.kind === "watch") {
    throw new ConflictError("A watch streams a running process: it can be cancelled, not paused");
  }
  await store.tx(async (t) => {
    await t.monitors.lockForUpdate(record.uid);
    if (!(await t.monitors.setState(record.uid, record.state, to))) throw changedMeanwhile();
    await t.monitors.setNextDue(record.uid, action === "pause" ? null : now);
  });
}
