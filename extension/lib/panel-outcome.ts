/**
 * Colour follows the outcome, not the state (issue #26): green met, red error / failed / timed
 * out / rate-limited / expired, grey cancelled, amber paused, blue waiting. The chip reads the
 * outcome in the CLI's word (shared/wording.ts `endingText`; a resolved waitpoint is "met"); the wake's own state ("wake ready", "delivered via …") is a separate line. Pure.
 * (Its imports end in .js: test/meta/one-vocabulary.test.ts checks it beside the CLI, with the host's resolution.)
 * Design: docs/design.md §7.
 */
import type { PanelItem } from "../../shared/schemas/native-messages.js";
import type { EndingReason } from "../../shared/schemas/views.js";
import { STATE_LABELS } from "../../shared/states.js";
import { endingText } from "../../shared/wording.js";

export type Tone = "met" | "failed" | "cancelled" | "paused" | "waiting" | "neutral";

export interface Outcome {
  tone: Tone;
  text: string;
}

/** A waitpoint's own end, as the monitor's ending reason (its chip reads as the CLI's line: "met", "expired"). */
const WAITPOINT_ENDINGS: Partial<Record<string, EndingReason>> = {
  resolved: "met",
  failed: "failed",
  expired: "timeout",
  cancelled: "stopped",
};

/** A device waitpoint whose device was removed: the one outcome with no ending reason of its own. */
export const ORPHANED_TEXT = "device removed";

export function outcomeOf({ monitor, waitpoint }: PanelItem): Outcome {
  if (monitor.state === "waiting") return { tone: "waiting", text: STATE_LABELS.waiting };
  if (monitor.state === "paused") return { tone: "paused", text: STATE_LABELS.paused };
  if (waitpoint?.state === "orphaned") return { tone: "failed", text: ORPHANED_TEXT };
  const reason = monitor.ending?.reason ?? (waitpoint ? WAITPOINT_ENDINGS[waitpoint.state] : undefined);
  if (!reason) return { tone: "neutral", text: STATE_LABELS[monitor.state] };
  const text = endingText(reason, monitor.kind);
  if (reason === "met") return { tone: "met", text };
  if (reason === "stopped") return { tone: "cancelled", text };
  if (reason === "exited") return { tone: "neutral", text };
  return { tone: "failed", text };
}
