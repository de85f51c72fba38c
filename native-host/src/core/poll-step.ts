/**
 * What one check's result means for its monitor, decided without I/O (the seed's poll-step):
 * keep waiting, or end — and why.
 * Design: docs/design.md §4.2, §4.3.
 */
import { type ConditionState, describeCondition, evaluateCondition, type Verdict } from "../../../shared/conditions.js";
import type { Condition } from "../../../shared/schemas/conditions.js";
import type { CheckResult } from "./check-result.js";

/** Unrunnable checks tolerated in a row after the first poll; the next one ends the monitor. */
export const UNRUNNABLE_TOLERATED = 4;

export interface PollState {
  /** Checks completed before this one. */
  polls: number;
  unrunnableStreak: number;
  conditionState: ConditionState;
}

export type PollStep =
  | {
      action: "continue";
      verdict: Verdict | "error";
      state: PollState;
      observation?: unknown;
      error?: string;
    }
  | {
      action: "end";
      reason: "met" | "error";
      detail: string;
      state: PollState;
      observation?: unknown;
      error?: string;
      eventText?: string;
    };

/** Where the run of consecutive met checks is kept (beside the `changed` digests). */
export const STREAK_KEY = "#met";

export const streakOf = (state: ConditionState): number => Number(state[STREAK_KEY] ?? 0);

/**
 * `consecutive`: the condition must be met on that many checks in a row (a flicker — not met,
 * unavailable or an error — resets the count). A condition met from the very first check ends
 * with a note that it was already true when armed.
 */
export function pollStep(result: CheckResult, condition: Condition, before: PollState, consecutive = 1): PollStep {
  const polls = before.polls + 1;
  const resetStreak = (state: ConditionState): ConditionState => {
    const { [STREAK_KEY]: _, ...rest } = state;
    return rest;
  };
  if (result.outcome === "error") {
    if (!result.unrunnable) {
      const state = { ...before, polls, conditionState: resetStreak(before.conditionState) };
      return { action: "continue", verdict: "error", error: result.error, state };
    }
    const streak = before.unrunnableStreak + 1;
    const state = { ...before, polls, unrunnableStreak: streak, conditionState: resetStreak(before.conditionState) };
    if (before.polls === 0) {
      return {
        action: "end",
        reason: "error",
        detail: `the first check could not run (${result.error})`,
        state,
        error: result.error,
      };
    }
    if (streak > UNRUNNABLE_TOLERATED) {
      return {
        action: "end",
        reason: "error",
        detail: `the check could not run ${streak} times in a row (${result.error})`,
        state,
        error: result.error,
      };
    }
    return { action: "continue", verdict: "error", error: result.error, state };
  }
  const evaluation = evaluateCondition(condition, result.observation, before.conditionState);
  if (evaluation.verdict !== "met") {
    const state = { polls, unrunnableStreak: 0, conditionState: resetStreak(evaluation.state) };
    return { action: "continue", verdict: evaluation.verdict, state, observation: result.observation };
  }
  const met = streakOf(before.conditionState) + 1;
  if (met < consecutive) {
    const state = { polls, unrunnableStreak: 0, conditionState: { ...evaluation.state, [STREAK_KEY]: String(met) } };
    return { action: "continue", verdict: "met", state, observation: result.observation };
  }
  const runs = consecutive > 1 ? ` (${consecutive} consecutive checks)` : "";
  const already = met === polls ? " — already true when armed" : "";
  return {
    action: "end",
    reason: "met",
    detail: `condition ${describeCondition(condition)} held on check ${polls}${runs}${already}`,
    state: { polls, unrunnableStreak: 0, conditionState: resetStreak(evaluation.state) },
    observation: result.observation,
    eventText: result.eventText,
  };
}
