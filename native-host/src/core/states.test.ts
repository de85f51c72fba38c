import { describe, expect, test } from "vitest";
import { MONITOR_STATES } from "../../../shared/schemas/views.js";
import { type StateChange, TRANSITIONS, TransitionError, transition } from "./states.js";

const EVENTS: StateChange[] = [
  "pause",
  "resume",
  "cancel",
  "end",
  "end_silently",
  "deliver",
  "delivered",
  "requeue",
  "review",
  "retry",
  "dismiss",
];

const ALLOWED: Array<[string, StateChange, string]> = [
  ["waiting", "pause", "paused"],
  ["waiting", "cancel", "cancelled"],
  ["waiting", "end", "ready"],
  ["waiting", "end_silently", "finished"],
  ["paused", "resume", "waiting"],
  ["paused", "cancel", "cancelled"],
  ["paused", "end", "ready"],
  ["paused", "end_silently", "finished"],
  ["ready", "cancel", "cancelled"],
  ["ready", "deliver", "continuing"],
  ["ready", "delivered", "finished"],
  ["ready", "review", "needs_review"],
  ["continuing", "delivered", "finished"],
  ["continuing", "requeue", "ready"],
  ["continuing", "review", "needs_review"],
  ["needs_review", "retry", "ready"],
  ["needs_review", "delivered", "finished"],
  ["ready", "dismiss", "finished"],
  ["needs_review", "dismiss", "finished"],
];

describe("the transition table", () => {
  test.each(ALLOWED)("%s --%s--> %s", (from, event, to) => {
    expect(transition(from as never, event)).toBe(to);
  });

  const refused = MONITOR_STATES.flatMap((from) =>
    EVENTS.filter((event) => !ALLOWED.some(([f, e]) => f === from && e === event)).map(
      (event) => [from, event] as const,
    ),
  );

  test.each(refused)("%s refuses %s", (from, event) => {
    expect(() => transition(from, event)).toThrow(TransitionError);
  });

  test("the table lists exactly the allowed transitions", () => {
    const count = Object.values(TRANSITIONS).reduce((n, row) => n + Object.keys(row).length, 0);
    expect(count).toBe(ALLOWED.length);
    expect(refused.length + ALLOWED.length).toBe(MONITOR_STATES.length * EVENTS.length);
  });

  test("finished and cancelled are terminal", () => {
    expect(TRANSITIONS.finished).toEqual({});
    expect(TRANSITIONS.cancelled).toEqual({});
  });

  test("the refusal says what was tried and from where", () => {
    expect(() => transition("finished", "pause")).toThrow("Cannot pause a monitor that is finished");
  });
});
