/**
 * Clear ended (#26): a session's ended monitors leave the side panel's list. Which ones is
 * shared/clear-ended.ts's one rule (the panel counts with it too, issue #38 item 4): a final state
 * (finished, cancelled) and no wake still to deliver or review. The rows, their events and their
 * wakes are kept (resolved waitpoints are purged after 3 days as before), so `vigil show` and the
 * wake ids still answer.
 * Design: docs/design.md §7.
 */
import { clearStanding } from "../../../shared/clear-ended.js";
import type { WakeState } from "../../../shared/schemas/views.js";
import type { Engine } from "../store/engine.js";

export async function clearEnded(store: Engine, sessionId: string, now: number): Promise<{ cleared: string[] }> {
  const cleared = await store.tx(async (t) => {
    const wakeStates = new Map<number, WakeState[]>();
    for (const wake of await t.wakes.list(sessionId)) {
      const states = wakeStates.get(wake.monitor_uid) ?? [];
      states.push(wake.state);
      wakeStates.set(wake.monitor_uid, states);
    }
    const uids = (await t.monitors.list(sessionId))
      .filter((m) => !m.cleared && clearStanding(m.state, wakeStates.get(m.uid) ?? []) === "clears")
      .map((m) => m.uid);
    return uids.length ? await t.monitors.markCleared(uids, now) : [];
  });
  return { cleared };
}
