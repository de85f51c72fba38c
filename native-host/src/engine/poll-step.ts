/**
 * What one check's result means for its monitor, decided without I/O (the seed's poll-step):
 * keep waiting, or end — and why.
 */
import { type ConditionState, describeCondition, evaluateCondition, type Verdict } from "../../../shared/conditions.js";
import type { Condition } from "../../../shared/schemas.js";
import type { CheckResult } from "../probes/probe.js";

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

export function pollStep(result: CheckResult, condition: Condition, before: PollState): PollStep {
  const polls = before.polls + 1;
  if (result.outcome === "error") {
    if (!result.unrunnable) {
      return { action: "continue", verdict: "error", error: result.error, state: { ...before, polls } };
    }
    const streak = before.unrunnableStreak + 1;
    const state = { ...before, polls, unrunnableStreak: streak };
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
  const state = { polls, unrunnableStreak: 0, conditionState: evaluation.state };
  if (evaluation.verdict === "met") {
    return {
      action: "end",
      reason: "met",
      detail: `condition ${describeCondition(condition)} held on check ${polls}`,
      state,
      observation: result.observation,
      eventText: result.eventText,
    };
  }
  return { action: "continue", verdict: evaluation.verdict, state, observation: result.observation };
}
