import { describe, expect, test } from "vitest";
import { clearStanding } from "./clear-ended.js";
import type { WakeState } from "./schemas/views.js";
import type { MonitorState } from "./states.js";
import { clearStayText } from "./wording.js";

describe("Clear ended's rule", () => {
  test.each<[MonitorState, WakeState[], string]>([
    ["waiting", [], "active"],
    ["paused", ["delivered"], "active"],
    ["ready", ["ready"], "wake_pending"],
    ["needs_review", ["needs_review"], "wake_pending"],
    ["continuing", ["delivered"], "wake_pending"],
    ["finished", [], "clears"],
    ["finished", ["delivered", "cancelled"], "clears"],
    ["finished", ["delivered", "ready"], "wake_pending"],
    ["cancelled", ["delivering"], "wake_pending"],
    ["cancelled", ["cancelled"], "clears"],
  ])("a %s monitor with wakes %j: %s", (state, wakes, standing) => {
    expect(clearStanding(state, wakes)).toBe(standing);
  });

  test("says why the rest stay", () => {
    expect(clearStayText(1)).toBe("1 stays: its wake is not delivered yet");
    expect(clearStayText(2)).toBe("2 stay: their wakes are not delivered yet");
  });
});
