/**
 * Clear ended (#26): a session's ended monitors leave the side panel's list. Only monitors whose
 * state is final (finished, cancelled) and that have no wake still to deliver or review are cleared;
 * the rows, their events and their wakes are kept (resolved waitpoints are purged after 3 days as
 * before), so `vigil show` and the wake ids still answer.
 * Design: docs/design.md §7.
 */
import type { Engine } from "../store/engine.js";

export async function clearEnded(store: Engine, sessionId: string, now: number): Promise<{ cleared: string[] }> {
  return { cleared: await store.tx((t) => t.monitors.clearEnded(sessionId, now)) };
}
