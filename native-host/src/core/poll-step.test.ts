import { describe, expect, test } from "vitest";
import { EXIT_ZERO } from "../../../shared/schemas/conditions.js";
import type { CheckResult } from "./check-result.js";
import { type PollState, pollStep } from "./poll-step.js";

const unrunnable: CheckResult = { outcome: "error", unrunnable: true, error: "exit 127: sh: nope: not found" };
const nonzero: CheckResult = { outcome: "observed", observation: { exitCode: 1, output: "" }, eventText: "" };
const zero: CheckResult = { outcome: "observed", observation: { exitCode: 0, output: "ok" }, eventText: "ok" };
const start: PollState = { polls: 0, unrunnableStreak: 0, conditionState: {} };

function run(results: CheckResult[], consecutive = 1) {
  let state = start;
  const actions: string[] = [];
  for (const result of results) {
    const step = pollStep(result, EXIT_ZERO, state, consecutive);
    actions.push(step.action === "end" ? `end:${step.reason}` : "continue");
    state = step.state;
    if (step.action === "end") break;
  }
  return actions;
}

describe("poll step (design.md §3)", () => {
  test("an unrunnable first poll ends the wait at once", () => {
    expect(run([unrunnable])).toEqual(["end:error"]);
  });

  test("later, four unrunnable checks are tolerated and the fifth ends it", () => {
    expect(run([nonzero, unrunnable, unrunnable, unrunnable, unrunnable, unrunnable])).toEqual([
      "continue",
      "continue",
      "continue",
      "continue",
      "continue",
      "end:error",
    ]);
  });

  test("an ordinary nonzero result resets the count", () => {
    const pattern = [
      nonzero,
      unrunnable,
      unrunnable,
      unrunnable,
      unrunnable,
      nonzero,
      unrunnable,
      unrunnable,
      unrunnable,
      unrunnable,
    ];
    expect(run(pattern).every((a) => a === "continue")).toBe(true);
    expect(run([...pattern, unrunnable]).at(-1)).toBe("end:error");
  });

  test("exit 0 ends it met, carrying the output as the event", () => {
    const step = pollStep(zero, EXIT_ZERO, { ...start, polls: 3 });
    expect(step).toMatchObject({ action: "end", reason: "met", eventText: "ok" });
    expect(step.action === "end" && step.detail).toBe("condition exitCode equals 0 held on check 4");
  });

  test("an observation error that is not unrunnable is retried", () => {
    const step = pollStep({ outcome: "error", error: "HTTP 503" }, EXIT_ZERO, start);
    expect(step).toMatchObject({ action: "continue", verdict: "error", error: "HTTP 503" });
  });
});

describe("consecutive and arm-time checks (beyond the peers)", () => {
  test("a flicker (met, not met, met) with consecutive 2 does not end; with consecutive 1 it does", () => {
    expect(run([zero, nonzero, zero], 2)).toEqual(["continue", "continue", "continue"]);
    expect(run([zero, nonzero, zero], 1)).toEqual(["end:met"]);
    expect(run([nonzero, zero, zero], 2)).toEqual(["continue", "continue", "end:met"]);
  });

  test("an error resets the run", () => {
    const error: CheckResult = { outcome: "error", error: "HTTP 503" };
    expect(run([zero, error, zero, zero], 2)).toEqual(["continue", "continue", "continue", "end:met"]);
  });

  test("a condition that already holds when armed says so", () => {
    const first = pollStep(zero, EXIT_ZERO, start);
    expect(first.action === "end" && first.detail).toBe(
      "condition exitCode equals 0 held on check 1 — already true when armed",
    );
    let state = start;
    for (const result of [zero, zero]) {
      const step = pollStep(result, EXIT_ZERO, state, 2);
      state = step.state;
      if (step.action === "end")
        expect(step.detail).toBe(
          "condition exitCode equals 0 held on check 2 (2 consecutive checks) — already true when armed",
        );
    }
  });
});
