/**
 * Human output for the CLI: one line per monitor, a block per monitor, a block per wake (the
 * relative-time and delivery wording are shared with the side panel: shared/wording.ts).
 * Design: docs/design.md §7.
 */
import { lastLines, OUTPUT_SHOWN_LINES } from "../../../shared/output-tail.js";
import { type CheckEntry, type MonitorView, STATE_LABELS, type WakeView } from "../../../shared/schemas/views.js";
import {
  countOf,
  deliveryText,
  dueText,
  endingText,
  formatSeconds,
  hostWaitText,
  KIND_TEXT,
  PAUSED_DEADLINE_TEXT,
  relativeTimeDetailed as relative,
  stalledText,
} from "../../../shared/wording.js";

/** The state in words: a stalled waitpoint says so instead of "waiting". */
function stateText(view: MonitorView, now: number): string {
  return view.stall ? stalledText(view.stall, view.createdAt, now) : STATE_LABELS[view.state];
}

/**
 * How it ended, in the panel's word (shared/wording.ts `endingText`: "timed out", "expired",
 * "cancelled"); nothing when the state already says it ("cancelled · cancelled").
 */
function endingPart(view: MonitorView): string {
  if (!view.ending) return "";
  const word = endingText(view.ending.reason, view.kind);
  return word === STATE_LABELS[view.state] ? "" : ` · ${word}`;
}

export function statusLine(view: MonitorView, now = Date.now()): string {
  const ending = endingPart(view);
  // A check whose host is away is not coming: the line says what it waits for instead.
  const next = view.nextCheckAt && !view.waitingForHost ? ` · next check ${dueText(view.nextCheckAt, now)}` : "";
  const deadline = view.deadlineAt ? ` · deadline ${relative(view.deadlineAt, now)}` : "";
  const error = view.lastError ? ` · last error: ${view.lastError.split("\n")[0]}` : "";
  const delivery = view.ending && view.delivery ? ` · ${deliveryText(view.delivery, now)}` : "";
  const streak = view.consecutive && !view.ending ? ` · ${view.consecutive}` : "";
  const sandbox = view.sandbox ? ` · ${view.sandbox}` : "";
  const away = view.waitingForHost
    ? ` · ${hostWaitText(view.waitingForHost, relative(view.waitingForHost.since, now))}`
    : "";
  return `${view.id} ${stateText(view, now)}${ending} · ${KIND_TEXT[view.kind]} · ${view.name} · ${countOf(view.eventCount, "event")}${streak}${sandbox}${away}${next}${deadline}${error}${delivery}`;
}

export function monitorBlock(view: MonitorView, now = Date.now()): string {
  const lines = [
    `${view.id} — ${view.name}`,
    `  session:   ${view.sessionId}`,
    `  kind:      ${KIND_TEXT[view.kind]}`,
    `  state:     ${stateText(view, now)}`,
  ];
  if (view.sandbox) lines.push(`  sandbox:   ${view.sandbox}`);
  if (view.waitingForHost)
    lines.push(`  host:      ${hostWaitText(view.waitingForHost, relative(view.waitingForHost.since, now))}`);
  if (view.ending)
    lines.push(
      `  ending:    ${endingText(view.ending.reason, view.kind)} at ${view.ending.at}${view.ending.detail ? ` — ${view.ending.detail}` : ""}`,
    );
  if (view.intervalSeconds !== null) lines.push(`  interval:  ${formatSeconds(view.intervalSeconds)}`);
  lines.push(`  timeout:   ${formatSeconds(view.timeoutSeconds)}`);
  lines.push(`  armed:     ${view.createdAt} (${relative(view.createdAt, now)})`);
  if (view.lastCheckAt)
    lines.push(
      `  last check: ${relative(view.lastCheckAt, now)}${view.polls !== null ? ` (${countOf(view.polls, "check")})` : ""}`,
    );
  if (view.nextCheckAt) lines.push(`  next check: ${dueText(view.nextCheckAt, now)}`);
  if (view.deadlineAt)
    lines.push(
      `  deadline:  ${relative(view.deadlineAt, now)}${view.state === "paused" ? ` (${PAUSED_DEADLINE_TEXT})` : ""}`,
    );
  lines.push(`  events:    ${view.eventCount}${view.lastEvent ? ` (last: ${view.lastEvent.split("\n")[0]})` : ""}`);
  if (view.lastOutput) lines.push(outputBlock("last check", view.lastOutput.exitCode, view.lastOutput.lines));
  if (view.lastError) lines.push(`  last error: ${view.lastError} (${countOf(view.errorCount, "error")})`);
  // A waitpoint's note is the intent it was armed with (design.md §5); a monitor's, its continuation.
  if (view.continuation)
    lines.push(view.kind === "signal" ? `  intent:    ${view.continuation}` : `  continuation: ${view.continuation}`);
  if (view.delivery) lines.push(`  wake:      ${view.delivery.wakeId} · ${deliveryText(view.delivery, now)}`);
  return lines.join("\n");
}

/** "  last check: exit 1, last lines:" and the lines, indented (text from outside, shown as data). */
export function outputBlock(what: string, exitCode: number | null, text: string): string {
  const exit = exitCode === null ? "no exit code (killed)" : `exit ${exitCode}`;
  if (text === "") return `  ${what}: ${exit}, no output`;
  return [`  ${what}: ${exit}, output:`, ...text.split("\n").map((line) => `    | ${line}`)].join("\n");
}

/**
 * The kept output of a check log: the latest check's exit code and last lines, or with `all`, every
 * kept output in full (the latest check's and the latest failing one's).
 */
export function checkOutputBlock(checks: CheckEntry[], all: boolean): string | null {
  const kept = checks.filter((c) => typeof c.output === "string");
  const shown = all ? kept : kept.slice(-1);
  if (shown.length === 0) return null;
  return shown
    .map((c) =>
      outputBlock(
        `check #${c.seq}`,
        c.exitCode ?? null,
        all ? (c.output as string) : lastLines(c.output as string, OUTPUT_SHOWN_LINES),
      ),
    )
    .join("\n");
}

export function wakeBlock(wake: WakeView): string {
  const via = wake.deliveredVia ? ` · via ${wake.deliveredVia}` : "";
  const error = wake.lastError ? ` · ${wake.lastError}` : "";
  return `── ${wake.id} · ${wake.state.replace("_", " ")}${via}${error} · ${wake.monitors.join(", ")} · ${wake.createdAt}\n${wake.text}`;
}
