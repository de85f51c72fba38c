/**
 * Clear ended's one rule (issue #26, #38 item 4), read by the daemon when it clears
 * (native-host/src/core/clear-ended.ts) and by the side panel when it counts what the button will
 * clear: a monitor leaves the list only once its state is final (finished, cancelled) and none of
 * its wakes is still to deliver or to review. No zod here: the side panel imports it.
 * Design: docs/design.md §7.
 */

import type { WakeState } from "./schemas/views.js";
import type { MonitorState } from "./states.js";

/** The wake states that keep a monitor in the list: its news has not reached the agent yet. */
export const PENDING_WAKE_STATES: readonly WakeState[] = ["ready", "delivering", "needs_review"];

/** What Clear ended does with one monitor: clears it, or leaves it (still active, or a wake pending). */
export type ClearStanding = "clears" | "active" | "wake_pending";

/** `wakeStates`: the states of its wakes (the daemon reads them all; the panel knows the latest). */
export function clearStanding(state: MonitorState, wakeStates: readonly WakeState[]): ClearStanding {
  if (state === "waiting" || state === "paused") return "active";
  if (state !== "finished" && state !== "cancelled") return "wake_pending";
  return wakeStates.some((s) => PENDING_WAKE_STATES.includes(s)) ? "wake_pending" : "clears";
}
