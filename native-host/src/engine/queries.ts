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
import type { Engine as Store } from "../store/engine.js";
import type { HostBrief } from "../store/hosts.js";
import type { MonitorRecord } from "../store/monitors.js";
import type { SessionRow } from "../store/sessions.js";
import { type DeliveryRow, parseWakeId, toDeliveryView, toWakeView } from "../store/wakes.js";
import { waitingForHost } from "./host.js";

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

  session(id: string): Promise<SessionRow> {
    return sessionOrThrow(this.store.tables, id);
  }

  sessions(): Promise<SessionRow[]> {
    return this.store.tables.sessions.list();
  }

  monitor(sessionId: string, id: string): Promise<MonitorRecord> {
    return monitorOrThrow(this.store.tables, sessionId, id);
  }

  /** Every host by id (team mode; one on SQLite): a monitor's view says when its host is away. */
  async hosts(): Promise<Map<string, HostBrief>> {
    return new Map((await this.store.tables.hosts.brief()).map((host) => [host.id, host]));
  }

  async view(record: MonitorRecord, hosts?: ReadonlyMap<string, HostBrief>): Promise<MonitorView> {
    const { waitpoints, sessions, wakes } = this.store.tables;
    const wp = record.kind === "signal" ? await waitpoints.byUid(record.uid) : undefined;
    const stall = wp
      ? stallOf(record, wp.heartbeatTimeoutMs, await waitpoints.lastSignalAt(record.uid), this.now())
      : null;
    const adapter = (await sessions.get(record.sessionId))?.adapter.kind;
    const latest = await wakes.latestOfMonitor(record.uid);
    return this.viewOf(record, latest, adapter, stall, hosts ?? (await this.hosts()));
  }

  /** The view from parts already read (the panel reads them for a whole page at once). */
  viewOf(
    record: MonitorRecord,
    latest: DeliveryRow | undefined,
    adapterKind: string | undefined,
    stall: Stall | null,
    hosts: ReadonlyMap<string, HostBrief>,
  ) {
    const delivery = latest ? toDeliveryView(latest) : null;
    if (delivery?.state === "ready" && delivery.attempts === 0) {
      const waitingFor = AGENT_SESSION[adapterKind ?? ""];
      if (waitingFor) delivery.waitingFor = waitingFor;
    }
    const view = toMonitorView(record, this.shield, delivery);
    if (stall) view.stall = stall;
    const away = waitingForHost(record, hosts, this.now());
    if (away) view.waitingForHost = away;
    return view;
  }

  async monitors(sessionId: string): Promise<MonitorView[]> {
    await this.session(sessionId);
    const [records, hosts] = await Promise.all([this.store.tables.monitors.list(sessionId), this.hosts()]);
    return Promise.all(records.map((record) => this.view(record, hosts)));
  }

  async events(sessionId: string, id: string): Promise<MonitorEvent[]> {
    return this.store.tables.events.recent((await this.monitor(sessionId, id)).uid);
  }

  async checks(sessionId: string, id: string): Promise<CheckEntry[]> {
    return this.store.tables.checks.list((await this.monitor(sessionId, id)).uid);
  }

  async wakes(sessionId: string): Promise<WakeView[]> {
    await this.session(sessionId);
    return (await this.store.tables.wakes.list(sessionId)).map(toWakeView);
  }

  async wake(sessionId: string, wakeId: string): Promise<WakeView> {
    await this.session(sessionId);
    const number = parseWakeId(wakeId);
    const row = number === null ? undefined : await this.store.tables.wakes.get(sessionId, number);
    if (!row) throw new NotFoundError(`Unknown wake ${wakeId} in session ${sessionId}`);
    return toWakeView(row);
  }

  /** A wake by its id alone (wake ids are unique across sessions): `vigil retry WAKE_ID`. */
  async wakeAnywhere(wakeId: string): Promise<WakeView> {
    const number = parseWakeId(wakeId);
    const row = number === null ? undefined : (await this.store.tables.wakes.byIds([number]))[0];
    if (!row) throw new NotFoundError(`Unknown wake ${wakeId}`);
    return toWakeView(row);
  }
}
