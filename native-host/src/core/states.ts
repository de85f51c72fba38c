/**
 * The one transition table for monitor states (design.md §2). Every state change in the code goes
 * through `transition`, and the store writes it with `WHERE state = <from>` so that a concurrent
 * change cannot be overwritten.
 */
import type { MonitorState } from "../../../shared/schemas/views.js";

/** What moves a monitor from one state to another (not an entry of its event log). */
export type StateChange =
  | "pause" // a person or agent pauses checks
  | "resume"
  | "cancel" // explicit stop: wakes nobody
  | "end" // the monitor ended (met, failed, timeout, …): its wake is ready
  | "end_silently" // ended with nothing to deliver
  | "deliver" // a delivery of its ending wake started
  | "delivered"
  | "requeue" // a delivery attempt failed; it will be retried
  | "review" // a delivery was interrupted or ran out of retries: a person must look
  | "retry" // a person sends a needs_review wake again
  | "dismiss"; // a person sets a needs_review or retrying wake aside: it is never delivered

export const TRANSITIONS: Record<MonitorState, Partial<Record<StateChange, MonitorState>>> = {
  waiting: { pause: "paused", cancel: "cancelled", end: "ready", end_silently: "finished" },
  paused: { resume: "waiting", cancel: "cancelled", end: "ready", end_silently: "finished" },
  ready: {
    cancel: "cancelled",
    deliver: "continuing",
    delivered: "finished",
    review: "needs_review",
    dismiss: "finished",
  },
  continuing: { delivered: "finished", requeue: "ready", review: "needs_review" },
  finished: {},
  cancelled: {},
  needs_review: { retry: "ready", delivered: "finished", dismiss: "finished" },
};

export class TransitionError extends Error {
  constructor(
    readonly from: MonitorState,
    readonly event: StateChange,
  ) {
    super(`Cannot ${event.replace("_", " ")} a monitor that is ${from.replace("_", " ")}`);
    this.name = "TransitionError";
  }
}

export function nextState(from: MonitorState, event: StateChange): MonitorState | undefined {
  return TRANSITIONS[from][event];
}

export function transition(from: MonitorState, event: StateChange): MonitorState {
  const to = nextState(from, event);
  if (to === undefined) throw new TransitionError(from, event);
  return to;
}

/** States in which a monitor is still armed (its trigger exists). */
export const ACTIVE_STATES: readonly MonitorState[] = ["waiting", "paused"];
export const isActive = (state: MonitorState): boolean => ACTIVE_STATES.includes(state);
