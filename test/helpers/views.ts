/** A monitor view as the API returns it, for tests of what renders one (the CLI's lines, the panel). */
import type { MonitorView } from "../../shared/schemas/views.js";

/** A waiting command monitor created at `at(0)`; `at` maps an offset in ms to an ISO time. */
export function monitorView(at: (offsetMs: number) => string, overrides: Partial<MonitorView> = {}): MonitorView {
  return {
    id: "mon-1",
    sessionId: "s",
    name: "build",
    kind: "command",
    state: "waiting",
    ending: null,
    eventCount: 0,
    lastEvent: null,
    lastObservation: null,
    sandbox: null,
    lastError: null,
    errorCount: 0,
    consecutive: null,
    polls: 0,
    createdAt: at(0),
    lastCheckAt: null,
    nextCheckAt: at(5_000),
    deadlineAt: at(300_000),
    intervalSeconds: 5,
    timeoutSeconds: 300,
    source: { kind: "command", command: "make", cwd: "/tmp" } as MonitorView["source"],
    continuation: null,
    delivery: null,
    ...overrides,
  };
}
