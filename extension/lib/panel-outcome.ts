/**
 * Colour follows the outcome, not the state (issue #26): green met, red error / failed / timed
 * out / rate-limited / expired, grey cancelled, amber paused, blue waiting. The chip reads the
 * outcome; the wake's own state ("wake ready", "delivered via …") is a separate line. Pure.
 * Design: docs/design.md §7.
 */
import type { PanelItem } from "../../shared/schemas/native-messages";
import { STATE_LABELS } from "../../shared/states";
import { ENDING_TEXT } from "../../shared/wording";

export type Tone = "met" | "failed" | "cancelled" | "paused" | "waiting" | "neutral";

export interface Outcome {
  tone: Tone;
  text: string;
}

const WAITPOINT_OUTCOMES: Record<string, Outcome> = {
  resolved: { tone: "met", text: "resolved" },
  failed: { tone: "failed", text: "failed" },
  expired: { tone: "failed", text: "expired" },
  orphaned: { tone: "failed", text: "device removed" },
  cancelled: { tone: "cancelled", text: "cancelled" },
};

export function outcomeOf({ monitor, waitpoint }: PanelItem): Outcome {
  if (monitor.state === "waiting") return { tone: "waiting", text: STATE_LABELS.waiting };
  if (monitor.state === "paused") return { tone: "paused", text: STATE_LABELS.paused };
  if (waitpoint && waitpoint.state !== "armed") {
    const outcome = WAITPOINT_OUTCOMES[waitpoint.state];
    if (outcome) return outcome;
  }
  const reason = monitor.ending?.reason;
  if (!reason) return { tone: "neutral", text: STATE_LABELS[monitor.state] };
  const text = ENDING_TEXT[reason];
  if (reason === "met") return { tone: "met", text };
  if (reason === "stopped") return { tone: "cancelled", text };
  if (reason === "exited") return { tone: "neutral", text };
  return { tone: "failed", text };
}
