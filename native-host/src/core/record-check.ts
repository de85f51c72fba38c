/**
 * Recording one check's result (inside the caller's transaction): the monitor is read again, and
 * if it was paused, cancelled or ended while the check ran the result is discarded; otherwise the
 * poll step decides, the observation is shielded and capped, and the next due time is set.
 * Design: docs/design.md §4.
 */

import { outputTail } from "../../../shared/output-tail.js";
import type { Condition } from "../../../shared/schemas/conditions.js";
import type { Source } from "../../../shared/schemas/sources.js";
import type { Shield } from "../secrets/shield.js";
import type { CheckOutput } from "../store/checks.js";
import type { Tables } from "../store/engine.js";
import { nextCheckAt } from "./cadence.js";
import type { CheckResult } from "./check-result.js";
import { type EndingDeps, endInTx } from "./endings.js";
import { pollStep } from "./poll-step.js";
import { isActive, transition } from "./states.js";

/** Strings in a stored observation are capped; the full output lives only in the check. */
const OBSERVATION_STRING_CAP = 4000;

function capStrings(value: unknown): unknown {
  if (typeof value === "string") {
    return value.length > OBSERVATION_STRING_CAP ? `…${value.slice(-OBSERVATION_STRING_CAP)}` : value;
  }
  if (Array.isArray(value)) return value.map(capStrings);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, capStrings(v)]));
  }
  return value;
}

const EXCERPT_CAP = 300;

/** Shielded, then cut: a cut made first could split a secret so the shield no longer knows it. */
function excerptOf(result: CheckResult, shield: Shield): string {
  const raw = result.outcome === "error" ? result.error : result.eventText || JSON.stringify(result.observation);
  const text = shield.text(raw);
  return text.length > EXCERPT_CAP ? `${text.slice(0, EXCERPT_CAP)}…` : text;
}

/** A command's exit code and output tail: shielded, then cut (the last 200 lines or 32 KiB). */
function outputOf(result: CheckResult, shield: Shield): CheckOutput | null {
  if (result.outcome !== "observed" || result.output === undefined) return null;
  return { exitCode: result.output.exitCode, text: outputTail(shield.text(result.output.text)) };
}

/** What the probe kind decides about a check: its condition, and how a met ending reads. */
export interface CheckRules {
  condition(source: Source): Condition;
  metDetail?(source: Source): string;
}

/** Whose monitor it was, and whether it is still active after this check (undefined: it is gone). */
export interface RecordedCheck {
  sessionId: string;
  active: boolean;
}

export async function recordCheckInTx(
  t: Tables,
  deps: EndingDeps,
  uid: number,
  rules: CheckRules,
  result: CheckResult,
  now: number,
  durationMs: number | null = null,
  /** How many polled monitors are armed (spreads their checks; see cadence.ts). */
  polledMonitors = 1,
): Promise<RecordedCheck | undefined> {
  const { shield } = deps;
  if (!(await t.monitors.lockForUpdate(uid))) return undefined;
  const record = await t.monitors.byUid(uid);
  if (!record) return undefined;
  if (!record.trigger || record.state !== "waiting") {
    if (record.trigger) await t.monitors.recordLeaseEnd(uid);
    return { sessionId: record.sessionId, active: isActive(record.state) };
  }
  const trigger = record.trigger;
  const step = pollStep(
    result,
    rules.condition(record.source),
    {
      polls: trigger.polls,
      unrunnableStreak: trigger.unrunnableStreak,
      conditionState: trigger.conditionState,
    },
    (record.source as { consecutive?: number }).consecutive ?? 1,
  );
  const observation = step.observation === undefined ? undefined : capStrings(shield.json(step.observation));
  const error = step.error === undefined ? null : shield.text(step.error);
  await t.monitors.recordCheck(uid, {
    at: now,
    nextDueAt: Math.max(
      nextCheckAt({
        uid,
        intervalMs: record.intervalMs ?? 0,
        dueAt: trigger.nextDueAt ?? now,
        now,
        first: trigger.polls === 0,
        polledMonitors,
      }),
      result.outcome === "error" ? (result.retryAt ?? 0) : 0,
    ),
    observation,
    error,
    unrunnableStreak: step.state.unrunnableStreak,
    conditionState: step.state.conditionState,
  });
  const outcome = step.action === "end" ? (step.reason === "met" ? "met" : "error") : step.verdict;
  const output = outputOf(result, shield);
  await t.checks.record(uid, step.state.polls, now, outcome, durationMs, excerptOf(result, shield), output);
  if (step.action === "end") {
    if (step.eventText !== undefined) await t.events.append(uid, shield.text(step.eventText), now);
    const ended = await t.monitors.byUid(uid);
    const detail = step.reason === "met" && rules.metDetail ? rules.metDetail(record.source) : step.detail;
    if (ended) await endInTx(t, deps, ended, step.reason, detail, now);
    return { sessionId: record.sessionId, active: false };
  }
  return { sessionId: record.sessionId, active: true };
}

/**
 * A check its host will not run (engine/seals.ts `UNSEALED_CHECK`), inside the caller's transaction:
 * the refusal goes into the check log and the monitor's error, and the monitor is paused, so it
 * shows in "Needs you" and nothing runs until someone arms it again (or cancels it). A resume is
 * refused the same way at its next check.
 */
export async function refuseCheckInTx(
  t: Tables,
  uid: number,
  reason: string,
  now: number,
): Promise<RecordedCheck | undefined> {
  if (!(await t.monitors.lockForUpdate(uid))) return undefined;
  const record = await t.monitors.byUid(uid);
  if (!record) return undefined;
  const { trigger } = record;
  if (!trigger || record.state !== "waiting") return { sessionId: record.sessionId, active: isActive(record.state) };
  await t.monitors.recordCheck(uid, {
    at: now,
    nextDueAt: now,
    error: reason,
    unrunnableStreak: trigger.unrunnableStreak,
    conditionState: trigger.conditionState,
  });
  await t.checks.record(uid, trigger.polls + 1, now, "error", null, reason);
  await t.monitors.setState(uid, record.state, transition(record.state, "pause"));
  await t.monitors.setNextDue(uid, null);
  return { sessionId: record.sessionId, active: true };
}
