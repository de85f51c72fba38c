/**
 * The CLI's monitor lines as a person reads them (#26): counts agree with their number, something due
 * is never "ago", settings read in days and hours, and a stalled waitpoint says so instead of "waiting".
 */
import { describe, expect, test } from "vitest";
import type { MonitorView } from "../../../shared/schemas/views.js";
import { STATE_LABELS } from "../../../shared/states.js";
import { monitorBlock, statusLine } from "./format.js";

const NOW = Date.parse("2026-12-02T12:00:00Z");
const at = (offsetMs: number) => new Date(NOW + offsetMs).toISOString();

const view = (overrides: Partial<MonitorView> = {}): MonitorView => ({
  id: "mon-1",
  sessionId: "s1",
  name: "CI run 8812 green",
  kind: "command",
  state: "waiting",
  ending: null,
  eventCount: 1,
  lastEvent: null,
  lastObservation: null,
  sandbox: null,
  lastError: null,
  errorCount: 0,
  consecutive: null,
  polls: 3,
  createdAt: at(-3_600_000),
  lastCheckAt: at(-50_000),
  nextCheckAt: at(-46_000),
  deadlineAt: at(3_600_000),
  intervalSeconds: 30,
  timeoutSeconds: 604_800,
  source: { kind: "command", command: "gh run view 8812" },
  continuation: null,
  delivery: null,
  ...overrides,
});

const waitpoint = (overrides: Partial<MonitorView> = {}) =>
  view({
    id: "wp_0123456789ab",
    kind: "signal",
    name: "train-arm2",
    eventCount: 2,
    nextCheckAt: null,
    intervalSeconds: null,
    source: { kind: "signal", members: null, quorum: 1, failFast: true, maxSignals: 1 },
    ...overrides,
  });

describe("statusLine (vigil ls)", () => {
  test("one event is '1 event'; an overdue check is never 'ago'", () => {
    const line = statusLine(view(), NOW);
    expect(line).toBe(
      "mon-1 waiting · command · CI run 8812 green · 1 event · next check overdue by 46s · deadline in 1h 0m",
    );
    expect(line).not.toMatch(/next check \S+ ago/);
    expect(statusLine(view({ eventCount: 3, nextCheckAt: at(8000) }), NOW)).toContain("· 3 events · next check in 8s");
  });

  test("a stalled waitpoint says stalled and when its last heartbeat came, not waiting", () => {
    const stall = { since: at(-60_000), lastSignalAt: at(-7 * 60_000), heartbeatTimeoutSeconds: 360 };
    const line = statusLine(waitpoint({ stall }), NOW);
    expect(line).toMatch(/^wp_0123456789ab stalled · last heartbeat 7m ago · waitpoint · train-arm2 · 2 events/);
    expect(line).not.toContain("waiting");
    expect(statusLine(waitpoint(), NOW)).toMatch(/^wp_0123456789ab waiting · waitpoint/);
  });
});

describe("a check that runs in Codex's sandbox (issue #37)", () => {
  test("ls and show say so, with the mode and the folder; a check without one says nothing", () => {
    const sandbox = "runs in Codex's sandbox (workspace-write, /work/p)";
    expect(statusLine(view({ sandbox }), NOW)).toContain(`· 1 event · ${sandbox} · next check`);
    expect(monitorBlock(view({ sandbox }), NOW)).toContain(`\n  sandbox:   ${sandbox}\n`);
    expect(statusLine(view(), NOW)).not.toContain("sandbox");
    expect(monitorBlock(view(), NOW)).not.toContain("sandbox");
  });
});

describe("monitorBlock (vigil show)", () => {
  test("the timeout reads 7d, not 604800s; the interval 30s; an overdue check is overdue", () => {
    const block = monitorBlock(view(), NOW);
    expect(block).toContain("  timeout:   7d\n");
    expect(block).toContain("  interval:  30s\n");
    expect(block).toContain("  next check: overdue by 46s");
    expect(block).not.toContain("604800");
  });

  test("counts agree with their number: '1 check', '1 error', '3 checks', '2 errors'", () => {
    const one = monitorBlock(view({ polls: 1, lastError: "exit 1", errorCount: 1 }), NOW);
    expect(one).toContain("  last check: 50s ago (1 check)\n");
    expect(one).toContain("  last error: exit 1 (1 error)");
    const more = monitorBlock(view({ polls: 3, lastError: "exit 1", errorCount: 2 }), NOW);
    expect(more).toContain("(3 checks)");
    expect(more).toContain("(2 errors)");
  });

  test("a stalled waitpoint's state line says stalled", () => {
    const stall = { since: at(-60_000), lastSignalAt: null, heartbeatTimeoutSeconds: 300 };
    expect(monitorBlock(waitpoint({ stall }), NOW)).toContain("  state:     stalled · no heartbeat since armed 1h ago");
  });
});

/** One word per state (issue #38 item 11): the panel's chip takes the same (extension/lib/panel-view.test.ts). */
test.each(["waiting", "paused", "ready", "continuing", "needs_review"] as const)(
  "the status line names %s by STATE_LABELS, as the panel's chip does",
  (state) => {
    expect(statusLine(view({ state }), NOW).startsWith(`mon-1 ${STATE_LABELS[state]} · `)).toBe(true);
  },
);
