/** The monitor view (design.md §11): what the API, CLI and side panel show. Shielded on the way out. */
import { lastLines, OUTPUT_SHOWN_LINES } from "../../../shared/output-tail.js";
import { sandboxSummary } from "../../../shared/schemas/sandbox.js";
import type { DeliveryView, MonitorView } from "../../../shared/schemas/views.js";
import { iso } from "../base/iso.js";
import type { Shield } from "../secrets/shield.js";
import type { MonitorRecord } from "../store/monitors.js";
import { streakOf } from "./poll-step.js";
import { readFieldsOf } from "./read-fields.js";

function consecutiveText(record: MonitorRecord): string | null {
  const wanted = (record.source as { consecutive?: number }).consecutive;
  if (!wanted || wanted <= 1 || !record.trigger) return null;
  return `${streakOf(record.trigger.conditionState)}/${wanted} consecutive`;
}

/** Characters of the last lines a view carries at most (the observation's output is capped anyway). */
const SHOWN_CHARS = 4000;

/** A command's last check as its observation holds it: exit code and last lines. */
function lastOutputOf(record: MonitorRecord): MonitorView["lastOutput"] {
  const observation = record.lastObservation as { exitCode?: unknown; output?: unknown } | null | undefined;
  if (record.kind !== "command" || typeof observation?.output !== "string") return undefined;
  const exitCode = typeof observation.exitCode === "number" ? observation.exitCode : null;
  const lines = lastLines(observation.output, OUTPUT_SHOWN_LINES);
  return { exitCode, lines: lines.length > SHOWN_CHARS ? `…${lines.slice(-SHOWN_CHARS)}` : lines };
}

export function toMonitorView(record: MonitorRecord, shield: Shield, delivery: DeliveryView | null): MonitorView {
  const trigger = record.trigger;
  const lastOutput = lastOutputOf(record);
  const readFields = readFieldsOf(record.source, record.lastObservation);
  return shield.json({
    id: record.id,
    sessionId: record.sessionId,
    name: record.name,
    kind: record.kind,
    state: record.state,
    ending:
      record.endingReason === null
        ? null
        : { reason: record.endingReason, at: iso(record.endingAt) as string, detail: record.endingDetail },
    eventCount: record.eventCount,
    lastEvent: record.lastEvent,
    lastObservation: record.lastObservation ?? null,
    ...(lastOutput ? { lastOutput } : {}),
    ...(readFields ? { readFields } : {}),
    lastError: record.lastError,
    errorCount: record.errorCount,
    consecutive: consecutiveText(record),
    polls: trigger?.polls ?? null,
    createdAt: iso(record.createdAt) as string,
    lastCheckAt: iso(record.lastCheckAt),
    nextCheckAt: iso(trigger?.nextDueAt),
    deadlineAt: iso(trigger?.deadlineAt),
    intervalSeconds: record.intervalMs === null ? null : record.intervalMs / 1000,
    timeoutSeconds: record.timeoutMs / 1000,
    source: record.source,
    continuation: record.continuation,
    delivery,
    sandbox: trigger?.sandbox ? sandboxSummary(trigger.sandbox) : null,
  }) as MonitorView;
}
