/**
 * The read side: views of sessions, monitors, their events and checks, and wakes, for the HTTP
 * routes. Reads only; every change goes through the Engine.
 * Design: docs/design.md §6, §7.
 */
import type { MonitorEvent, MonitorView, Stall, WakeView } from "../../../shared/schemas/views.js";
import { NotFoundError } from "../base/errors.js";
import { monitorOrThrow, sessionOrThrow } from "../core/lookup.js";
import { toMonitorView } from "../core/views.js";
import { stallOf } from "../core/waitpoint-view.js";
import type { Shield } from "../secrets/shield.js";
import type { CheckEntry } from "../store/checks.js";
import type { MonitorRecord } from "../store/monitors.js";
import type { SessionRow } from "../store/sessions.js";
import type { Store } from "../store/store.js";
import { type DeliveryRow, parseWakeId, toDeliveryView, toWakeView } from "../store/wakes.js";

/**
 * Who takes a ready wake of an agent session: the open session through its hooks, or, once it is
 * closed, the headless resume (design.md §6).
 */
const AGENT_SESSION: Record<string, string> = {
  claude: "the Claude Code session (its next turn, or a resume once closed)",
  codex: "the Codex session (its next turn, or a resume once closed)",
  gemini: "the Gemini CLI session (its next turn, or a resume once closed)",
  opencode: "the OpenCode session (prompted once idle, or a resume once closed)",
  copilot: "the Copilot CLI session (its next turn, or a resume once closed)",
};

export class Queries {
  constructor(
    private readonly store: Store,
    private readonly shield: Shield,
    private readonly now: () => number = Date.now,
  ) {}

  session(id: string): SessionRow {
    return sessionOrThrow(this.store, id);
  }

  sessions(): SessionRow[] {
    return this.store.sessions.list();
  }

  monitor(sessionId: string, id: string): MonitorRecord {
    return monitorOrThrow(this.store, sessionId, id);
  }

  view(record: MonitorRecord): MonitorView {
    const wp = record.kind === "signal" ? this.store.waitpoints.byUid(record.uid) : undefined;
    const stall = wp
      ? stallOf(record, wp.heartbeatTimeoutMs, this.store.waitpoints.lastSignalAt(record.uid), this.now())
      : null;
    const adapter = this.store.sessions.get(record.sessionId)?.adapter.kind;
    return this.viewOf(record, this.store.wakes.latestOfMonitor(record.uid), adapter, stall);
  }

  /** The view from parts already read (the panel reads them for a whole page at once). */
  viewOf(record: MonitorRecord, latest: DeliveryRow | undefined, adapterKind: string | undefined, stall: Stall | null) {
    const delivery = latest ? toDeliveryView(latest) : null;
    if (delivery?.state === "ready" && delivery.attempts === 0) {
      const waitingFor = AGENT_SESSION[adapterKind ?? ""];
      if (waitingFor) delivery.waitingFor = waitingFor;
    }
    const view = toMonitorView(record, this.shield, delivery);
    if (stall) view.stall = stall;
    return view;
  }

  monitors(sessionId: string): MonitorView[] {
    this.session(sessionId);
    return this.store.monitors.list(sessionId).map((record) => this.view(record));
  }

  events(sessionId: string, id: string): MonitorEvent[] {
    return this.store.events.recent(this.monitor(sessionId, id).uid);
  }

  checks(sessionId: string, id: string): CheckEntry[] {
    return this.store.checks.list(this.monitor(sessionId, id).uid);
  }

  wakes(sessionId: string): WakeView[] {
    this.session(sessionId);
    return this.store.wakes.list(sessionId).map(toWakeView);
  }

  wake(sessionId: string, wakeId: string): WakeView {
    this.session(sessionId);
    const number = parseWakeId(wakeId);
    const row = number === null ? undefined : this.store.wakes.get(sessionId, number);
    if (!row) throw new NotFoundError(`Unknown wake ${wakeId} in session ${sessionId}`);
    return toWakeView(row);
  }

  /** A wake by its id alone (wake ids are unique across sessions): `vigil retry WAKE_ID`. */
  wakeAnywhere(wakeId: string): WakeView {
    const number = parseWakeId(wakeId);
    const row = number === null ? undefined : this.store.wakes.byIds([number])[0];
    if (!row) throw new NotFoundError(`Unknown wake ${wakeId}`);
    return toWakeView(row);
  }
}
