/**
 * One word per state and kind (issue #38 item 11): for every monitor state, ending reason and kind,
 * the CLI's status line (`vigil ls`, `vigil show`) and the side panel's row (its chip, its kind)
 * print the same word. The words live in shared/wording.ts; JSON keeps its codes.
 */
import { describe, expect, test } from "vitest";
import { outcomeOf } from "../../extension/lib/panel-outcome.js";
import { monitorBlock, statusLine } from "../../native-host/src/cli/format.js";
import type { SourceKind } from "../../shared/schemas/sources.js";
import type { EndingReason, MonitorView } from "../../shared/schemas/views.js";
import { MONITOR_STATES } from "../../shared/states.js";
import { CANCEL_TEXT, KIND_TEXT } from "../../shared/wording.js";
import { monitorView } from "../helpers/views.js";

const NOW = Date.parse("2026-12-06T03:00:00Z");
const at = (ms: number) => new Date(NOW + ms).toISOString();
const KINDS: SourceKind[] = ["command", "watch", "tool", "event", "time", "browser", "signal"];
const REASONS: EndingReason[] = ["met", "failed", "exited", "timeout", "stopped", "rate_limited", "error", "lost"];

/** Each state with the endings it can have (none while armed; a cancel's `stopped` when cancelled). */
const cases = KINDS.flatMap((kind) =>
  MONITOR_STATES.flatMap((state) => {
    const reasons: Array<EndingReason | null> =
      state === "waiting" || state === "paused" ? [null] : state === "cancelled" ? ["stopped"] : REASONS;
    return reasons.map((reason) => ({ kind, state, reason }));
  }),
);

const viewOf = ({ kind, state, reason }: (typeof cases)[number]): MonitorView =>
  monitorView(at, {
    kind,
    state,
    ending: reason ? { reason, at: at(-60_000), detail: null } : null,
    deadlineAt: reason ? null : at(300_000),
    nextCheckAt: reason ? null : at(5_000),
  });

/** The CLI line's words before the name: "mon-1 finished · met · waitpoint · …" → ["finished", "met", "waitpoint"]. */
const cliWords = (line: string): string[] => {
  const [first = "", ...rest] = line.split(" · ");
  return [first.slice(first.indexOf(" ") + 1), ...rest];
};

describe("the CLI and the panel name each state and kind alike", () => {
  test.each(cases)("$kind $state $reason", (c) => {
    const view = viewOf(c);
    const chip = outcomeOf({ session: { id: "s", label: null }, monitor: view }).text;
    const line = statusLine(view, NOW);
    // The chip's word (the outcome: "met", "timed out", "expired", "cancelled", "waiting") is on the CLI line…
    expect(cliWords(line), line).toContain(chip);
    // …and so is the kind, as the panel's row names it ("waitpoint" for kind signal).
    expect(cliWords(line), line).toContain(KIND_TEXT[c.kind]);
    expect(monitorBlock(view, NOW)).toContain(`kind:      ${KIND_TEXT[c.kind]}`);
    if (c.reason) expect(monitorBlock(view, NOW)).toContain(`ending:    ${chip} at `);
  });

  test("the words that differed in issue #38 are one now", () => {
    const waitpoint = viewOf({ kind: "signal", state: "finished", reason: "met" });
    expect(statusLine(waitpoint, NOW)).toMatch(/^mon-1 finished · met · waitpoint · /);
    const expired = viewOf({ kind: "signal", state: "finished", reason: "timeout" });
    expect(statusLine(expired, NOW)).toMatch(/^mon-1 finished · expired · waitpoint · /);
    const late = viewOf({ kind: "command", state: "ready", reason: "timeout" });
    expect(statusLine(late, NOW)).toMatch(/^mon-1 ready · timed out · command · /);
    const cancelled = viewOf({ kind: "command", state: "cancelled", reason: "stopped" });
    expect(statusLine(cancelled, NOW)).toMatch(/^mon-1 cancelled · command · /);
    expect(outcomeOf({ session: { id: "s", label: null }, monitor: cancelled }).text).toBe("cancelled");
    // The panel's Cancel says "cancel" from its button to its toast, as `vigil cancel` does.
    expect(Object.values(CANCEL_TEXT).join(" ")).not.toMatch(/stop waiting/i);
  });
});
