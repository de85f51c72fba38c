/**
 * The engine: sessions, monitors, checks, endings and wakes. Every interface (HTTP, and through it
 * the CLI and MCP) calls these methods; nothing else writes monitor state.
 */

import { homedir } from "node:os";
import {
  type ControlAction,
  type EndingReason,
  type EventPost,
  formatZodError,
  type MonitorCreate,
  type MonitorEvent,
  type MonitorView,
  type SessionCreate,
  type Source,
  SourceSchema,
  type WakeView,
} from "../../../shared/schemas.js";
import { DEFAULT_SETTINGS, type ResolvedSettings } from "../base/config.js";
import { ConflictError, LimitError, NotFoundError, ValidationError } from "../base/errors.js";
import { type Logger, toError } from "../base/log.js";
import { BrowserLink } from "../browser/link.js";
import { Changes } from "../core/changes.js";
import { type EndingDeps, endInTx, insertWake } from "../core/endings.js";
import { offerEvent } from "../core/event-match.js";
import { LagStats } from "../core/lag-stats.js";
import { recordCheckInTx } from "../core/record-check.js";
import { isActive, nextState, type MonitorEvent as StateEvent, TransitionError } from "../core/states.js";
import { toMonitorView } from "../core/views.js";
import { Waitpoints } from "../core/waitpoints.js";
import { WatchBatch } from "../core/watch-batch.js";
import type { CheckResult, PollProbe, StreamProbe } from "../probes/probe.js";
import { kindsInGroup, LIMITS, probeFor } from "../probes/registry.js";
import { secretKeysIn } from "../secrets/references.js";
import { Shield } from "../secrets/shield.js";
import { Vault } from "../secrets/vault.js";
import type { CheckEntry } from "../store/checks.js";
import type { MonitorRecord } from "../store/monitors.js";
import type { SessionRow } from "../store/sessions.js";
import type { Store } from "../store/store.js";
import { parseWakeId, toDeliveryView, toWakeView } from "../store/wakes.js";
import { Scheduler } from "./scheduler.js";

export interface EngineOptions {
  store: Store;
  log: Logger;
  now?: () => number;
  /** Checks running at once across all monitors. */
  concurrency?: number;
  shield?: Shield;
  changes?: Changes;
  settings?: ResolvedSettings;
  /** How an outside job reaches this daemon (for waitpoints' how_to_signal lines). */
  signalTarget?: () => { command: string; url: string; spoolDir: string };
  /** The connected browser, for `browser` sources and the tabs route (none: checks say so). */
  browser?: BrowserLink;
}

interface RunningWatch {
  controller: AbortController;
  batch: WatchBatch;
}

export class Engine {
  readonly shield: Shield;
  readonly browser: BrowserLink;
  readonly vault: Vault;
  readonly waitpoints: Waitpoints;
  readonly #store: Store;
  readonly #log: Logger;
  readonly #now: () => number;
  readonly #concurrency: number;
  readonly #scheduler: Scheduler;
  /** Checks in flight, by monitor uid: aborted when the monitor ends or is deleted. */
  readonly #checks = new Map<number, AbortController>();
  readonly #watches = new Map<number, RunningWatch>();
  /** How late each check started against its due time. */
  readonly checkLag = new LagStats();
  /** Secret values resolved for each monitor at start or resume (never per poll). */
  readonly #secretEnv = new Map<number, Record<string, string>>();
  readonly changes: Changes;
  #stopped = false;

  constructor(options: EngineOptions) {
    this.#store = options.store;
    this.#log = options.log;
    this.#now = options.now ?? Date.now;
    this.#concurrency = options.concurrency ?? 32;
    this.shield = options.shield ?? new Shield(this.#store.vault.entries());
    this.changes = options.changes ?? new Changes();
    this.browser = options.browser ?? new BrowserLink();
    this.vault = new Vault(this.#store, this.shield, this.#now);
    this.waitpoints = new Waitpoints({
      ...this.#endingDeps,
      changes: this.changes,
      now: this.#now,
      poke: () => this.#scheduler?.poke(),
      settings: options.settings ?? DEFAULT_SETTINGS,
      target:
        options.signalTarget ??
        (() => ({ command: "vigil", url: "http://127.0.0.1:7391/webhook/signal", spoolDir: "~/.vigil/tmp/signals" })),
    });
    this.#scheduler = new Scheduler({
      now: this.#now,
      nextAt: () => this.#nextAt(),
      tick: (now) => this.#tick(now),
    });
  }

  // ------------------------------------------------------------------ lifecycle

  /** Resumes after a (clean or crashed) stop: polls resume at their due time, watches are lost. */
  start(): void {
    const store = this.#store;
    store.monitors.clearLeases();
    for (const record of store.monitors.armedOfMode("stream")) {
      this.#end(record, "lost", "the Vigil daemon restarted; the watched process ended with it");
    }
    for (const record of store.monitors.armedOfMode("poll")) {
      const missing = this.#resolveSecrets(record, "resume");
      if (missing) this.#end(record, "error", `vault key ${missing} was removed while the daemon was down`);
    }
    this.#scheduler.poke();
  }

  stop(): void {
    this.#stopped = true;
    this.#scheduler.stop();
    for (const controller of this.#checks.values()) controller.abort();
    for (const watch of this.#watches.values()) {
      watch.batch.close();
      watch.controller.abort();
    }
  }

  get #endingDeps(): EndingDeps {
    return { store: this.#store, shield: this.shield, log: this.#log };
  }

  #changed(sessionId: string): void {
    this.changes.emit(sessionId);
  }

  /** The time the scheduler's single timer is set for (for tests and `vigil status`). */
  get nextTimerAt(): number | null {
    return this.#scheduler.armedFor;
  }

  get runningChecks(): number {
    return this.#checks.size;
  }

  // ------------------------------------------------------------------ sessions

  createSession(input: SessionCreate): { session: SessionRow; created: boolean } {
    const id = input.id ?? `s-${crypto.randomUUID().slice(0, 8)}`;
    const existing = this.#store.sessions.get(id);
    if (existing) return { session: existing, created: false };
    // The adapter is set through Delivery.setAdapter (a webhook needs its secret made there).
    this.#store.sessions.insert({
      id,
      label: input.label ?? null,
      root: input.root ?? null,
      adapter: { kind: "inbox" },
      createdAt: this.#now(),
    });
    return { session: this.session(id), created: true };
  }

  setSessionLabel(id: string, label: string): void {
    this.session(id);
    this.#store.sessions.setLabel(id, label);
  }

  session(id: string): SessionRow {
    const session = this.#store.sessions.get(id);
    if (!session) throw new NotFoundError(`Unknown session ${id}`);
    return session;
  }

  sessions(): SessionRow[] {
    return this.#store.sessions.list();
  }

  /** Deleting a session cancels everything it owns, so nothing old can resume it. */
  deleteSession(id: string): void {
    this.session(id);
    for (const record of this.#store.monitors.list(id)) this.#abortWork(record.uid);
    this.#store.sessions.delete(id);
    this.#changed(id);
    this.#scheduler.poke();
  }

  // ------------------------------------------------------------------ monitors

  createMonitor(sessionId: string, body: MonitorCreate): MonitorView {
    const session = this.session(sessionId);
    const parsed = SourceSchema.safeParse(body.source);
    if (!parsed.success) throw new ValidationError(`source: ${formatZodError(parsed.error)}`);
    const source = parsed.data;
    if (source.kind === "signal") {
      throw new ValidationError(
        "source.kind: a waitpoint is armed with wait_create (POST /api/sessions/:sid/waitpoints)",
      );
    }
    const probe = probeFor(source.kind);
    const timing = probe.timing(body);
    const missing = secretKeysIn(probe.secretText(source)).find((key) => !this.vault.has(key));
    if (missing) throw new ValidationError(`Vault key ${missing} is not set (set it with: vigil vault set ${missing})`);

    const now = this.#now();
    probe.validate?.(source, { now, deadlineAt: now + timing.timeoutMs });
    const record = this.#store.tx(() => {
      for (const group of probe.limitGroups) {
        const limit = LIMITS[group];
        if (!limit) continue;
        const active = this.#store.monitors.countActive(sessionId, kindsInGroup(group));
        if (active >= limit.max) {
          throw new LimitError(
            `Limit reached: at most ${limit.max} ${limit.label} armed per session (this session has ${active}); cancel one first`,
          );
        }
      }
      const id = `mon-${this.#store.sessions.nextMonitorSeq(sessionId)}`;
      const uid = this.#store.monitors.insert({
        sessionId,
        id,
        name: body.name ?? this.shield.text(probe.defaultName(source)),
        kind: source.kind,
        source,
        continuation: body.continuation ?? null,
        intervalMs: timing.intervalMs,
        timeoutMs: timing.timeoutMs,
        createdAt: now,
        mode: probe.mode,
        nextDueAt: probe.mode === "poll" ? (probe.firstDueAt ? probe.firstDueAt(source as never, now) : now) : null,
        deadlineAt: now + timing.timeoutMs,
      });
      return this.#record(uid);
    });
    this.#resolveSecrets(record, "start");
    if (probe.mode === "poll") this.#polled.at = Number.NEGATIVE_INFINITY; // counted again at its first check
    if (probe.mode === "stream") this.#startWatch(record, probe, session);
    if (source.kind === "event" && source.lookbackSeconds > 0)
      this.#offerPastEvents(record, source.lookbackSeconds, now);
    this.#changed(sessionId);
    this.#scheduler.poke();
    return this.view(this.#record(record.uid));
  }

  /**
   * An event posted to the session: persisted, then offered to the session's armed event monitors,
   * in one transaction, before the route answers 202. Another session's monitors never see it.
   */
  postEvent(sessionId: string, event: EventPost): { accepted: true; event: number; ended: string[] } {
    this.session(sessionId);
    const now = this.#now();
    const result = this.#store.tx(() => {
      const id = this.#store.inboundEvents.insert(sessionId, event.type, event.payload, now);
      const ended: MonitorRecord[] = [];
      for (const record of this.#store.monitors.list(sessionId)) {
        if (record.kind !== "event") continue;
        const offered = { type: event.type, payload: event.payload, sessionId };
        if (offerEvent(this.#endingDeps, record, offered, now)) ended.push(record);
      }
      this.#store.inboundEvents.setMatched(
        id,
        ended.map((r) => r.id),
      );
      return { id, ended };
    });
    for (const record of result.ended) this.#abortWork(record.uid);
    this.#changed(sessionId);
    this.#scheduler.poke();
    return { accepted: true, event: result.id, ended: result.ended.map((r) => r.id) };
  }

  /** lookbackSeconds: events accepted shortly before arming are matched now, oldest first. */
  #offerPastEvents(record: MonitorRecord, lookbackSeconds: number, now: number): void {
    const ended = this.#store.tx(() => {
      for (const event of this.#store.inboundEvents.since(
        record.sessionId,
        (record.source as { type: string }).type,
        now - lookbackSeconds * 1000,
      )) {
        const fresh = this.#store.monitors.byUid(record.uid);
        const offered = { type: event.type, payload: event.payload, sessionId: record.sessionId };
        if (fresh && offerEvent(this.#endingDeps, fresh, offered, now)) {
          this.#store.inboundEvents.setMatched(event.id, [record.id]);
          return true;
        }
      }
      return false;
    });
    if (ended) this.#abortWork(record.uid);
  }

  monitor(sessionId: string, id: string): MonitorRecord {
    this.session(sessionId);
    const record = this.#store.monitors.get(sessionId, id);
    if (!record) throw new NotFoundError(`Unknown monitor ${id} in session ${sessionId}`);
    return record;
  }

  view(record: MonitorRecord): MonitorView {
    const latest = this.#store.wakes.latestOfMonitor(record.uid);
    return toMonitorView(record, this.shield, latest ? toDeliveryView(latest) : null);
  }

  monitors(sessionId: string): MonitorView[] {
    this.session(sessionId);
    return this.#store.monitors.list(sessionId).map((record) => this.view(record));
  }

  events(sessionId: string, id: string): MonitorEvent[] {
    const record = this.monitor(sessionId, id);
    return this.#store.events.recent(record.uid);
  }

  checks(sessionId: string, id: string): CheckEntry[] {
    return this.#store.checks.list(this.monitor(sessionId, id).uid);
  }

  wakes(sessionId: string): WakeView[] {
    this.session(sessionId);
    return this.#store.wakes.list(sessionId).map(toWakeView);
  }

  wake(sessionId: string, wakeId: string): WakeView {
    this.session(sessionId);
    const number = parseWakeId(wakeId);
    const row = number === null ? undefined : this.#store.wakes.get(sessionId, number);
    if (!row) throw new NotFoundError(`Unknown wake ${wakeId} in session ${sessionId}`);
    return toWakeView(row);
  }

  control(sessionId: string, id: string, action: ControlAction): MonitorView {
    const record = this.monitor(sessionId, id);
    const event: StateEvent = action;
    const to = nextState(record.state, event);
    if (record.state === "continuing" && action === "cancel") {
      throw new ConflictError(
        `Cannot cancel ${id}: its wake is being delivered, and a delivery already started cannot be undone`,
      );
    }
    if (to === undefined) throw new ConflictError(new TransitionError(record.state, event).message);
    const now = this.#now();
    if (action === "cancel") {
      this.#store.tx(() => {
        if (isActive(record.state)) {
          this.#store.monitors.end(record.uid, record.state, to, "stopped", "cancelled by request", now);
        } else if (!this.#store.monitors.setState(record.uid, record.state, to)) {
          throw new ConflictError(`Monitor ${id} changed state meanwhile; try again`);
        }
        this.#store.wakes.cancelReady(record.uid);
      });
      this.#abortWork(record.uid);
    } else {
      if (record.kind === "watch")
        throw new ConflictError("A watch streams a running process: it can be cancelled, not paused");
      this.#store.tx(() => {
        if (!this.#store.monitors.setState(record.uid, record.state, to)) {
          throw new ConflictError(`Monitor ${id} changed state meanwhile; try again`);
        }
        // Pause stops checks but keeps the deadline; resume checks at once.
        this.#store.monitors.setNextDue(record.uid, action === "pause" ? null : now);
      });
    }
    this.#changed(sessionId);
    this.#scheduler.poke();
    return this.view(this.#record(record.uid));
  }

  // ------------------------------------------------------------------ scheduling and checks

  /** Resolves a monitor's `${secret:KEY}` values (an audit entry each); returns a missing key. */
  #resolveSecrets(record: MonitorRecord, purpose: "start" | "resume"): string | undefined {
    const keys = secretKeysIn(probeFor(record.kind).secretText(record.source as never));
    const resolved = this.vault.resolve(keys, { sessionId: record.sessionId, monitorId: record.id, purpose });
    if ("missing" in resolved) return resolved.missing;
    if (keys.length > 0) this.#secretEnv.set(record.uid, resolved.env);
    return undefined;
  }

  #record(uid: number): MonitorRecord {
    const record = this.#store.monitors.byUid(uid);
    if (!record) throw new NotFoundError(`Monitor ${uid} no longer exists`);
    return record;
  }

  #nextAt(): number | null {
    const { due, deadline } = this.#store.monitors.nextTimes();
    // With every check slot busy, only deadlines can be acted on; a finishing check pokes again.
    const usable = this.#checks.size >= this.#concurrency ? null : due;
    if (usable === null) return deadline;
    if (deadline === null) return usable;
    return Math.min(usable, deadline);
  }

  #tick(now: number): void {
    if (this.#stopped) return;
    for (const record of this.#store.monitors.expired(now)) {
      const detail =
        record.kind === "signal"
          ? this.waitpoints.deadlineDetail(record)
          : `deadline of ${Math.round(record.timeoutMs / 1000)}s passed`;
      this.#end(record, "timeout", detail);
    }
    const room = this.#concurrency - this.#checks.size;
    if (room <= 0) return;
    for (const record of this.#store.monitors.due(now, room)) {
      const probe = probeFor(record.kind);
      if (probe.mode === "signal") {
        this.waitpoints.fireDue(record, now);
        continue;
      }
      if (probe.mode !== "poll") continue;
      const timing = probe.timing({
        intervalSeconds: (record.intervalMs ?? 0) / 1000,
        timeoutSeconds: record.timeoutMs / 1000,
      });
      if (!this.#store.monitors.lease(record.uid, now + timing.checkTimeoutMs + 5000)) continue;
      const dueAt = record.trigger?.nextDueAt ?? null;
      // One spawn per turn of the event loop: starting a process blocks it for milliseconds, and
      // the API must keep answering when many checks fall due together.
      setImmediate(() => {
        if (this.#stopped) return;
        // Lateness is measured here, as the check starts, not when it was picked.
        if (dueAt !== null) this.checkLag.record(this.#now() - dueAt);
        void this.#runCheck(record, probe, timing.checkTimeoutMs);
      });
    }
  }

  async #runCheck(record: MonitorRecord, probe: PollProbe, timeoutMs: number): Promise<void> {
    const controller = new AbortController();
    this.#checks.set(record.uid, controller);
    const started = performance.now();
    let result: CheckResult;
    try {
      const session = this.#store.sessions.get(record.sessionId);
      result = await probe.check(record.source, {
        signal: controller.signal,
        cwd: this.#cwdFor(record, session),
        env: this.#secretEnv.get(record.uid) ?? {},
        timeoutMs,
        browser: this.browser,
        label: record.name,
      });
    } catch (error) {
      result = { outcome: "error", error: toError(error).message };
    } finally {
      if (this.#checks.get(record.uid) === controller) this.#checks.delete(record.uid);
    }
    if (controller.signal.aborted || this.#stopped) {
      this.#scheduler.poke();
      return;
    }
    try {
      this.#recordCheck(record.uid, probe, result, performance.now() - started);
    } catch (error) {
      this.#log.error(`recording a check of monitor ${record.uid} failed: ${toError(error).message}`);
    }
    this.#scheduler.poke();
  }

  #cwdFor(record: MonitorRecord, session: SessionRow | undefined): string {
    const source = record.source as Source;
    return ("cwd" in source && source.cwd) || session?.root || homedir();
  }

  #polled = { count: 1, at: Number.NEGATIVE_INFINITY };

  /** How many polled monitors are armed, counted again at most once a second. */
  #polledMonitors(now: number): number {
    if (now - this.#polled.at >= 1000) this.#polled = { count: this.#store.monitors.countPolled(), at: now };
    return this.#polled.count;
  }

  #recordCheck(uid: number, probe: PollProbe, result: CheckResult, durationMs: number): void {
    const now = this.#now();
    const polled = this.#polledMonitors(now);
    this.#store.tx(() => recordCheckInTx(this.#endingDeps, uid, probe, result, now, durationMs, polled));
    const record = this.#record(uid);
    if (!isActive(record.state)) this.#secretEnv.delete(uid);
    this.#changed(record.sessionId);
  }

  // ------------------------------------------------------------------ watches

  #startWatch(record: MonitorRecord, probe: StreamProbe, session: SessionRow): void {
    const controller = new AbortController();
    const batch = new WatchBatch({
      now: this.#now,
      record: (line) => {
        this.#store.events.append(record.uid, this.shield.text(line), this.#now());
        this.#changed(record.sessionId);
      },
      flush: () => this.#eventsWake(record.uid),
      rateLimited: () =>
        this.#end(
          this.#record(record.uid),
          "rate_limited",
          "more than 60 events in a sliding minute; the watch was stopped",
        ),
    });
    this.#watches.set(record.uid, { controller, batch });
    probe.start(record.source, {
      signal: controller.signal,
      cwd: this.#cwdFor(record, session),
      env: this.#secretEnv.get(record.uid) ?? {},
      onLine: (line) => batch.line(line),
      onExit: (_exitCode, detail) => {
        batch.close();
        if (this.#watches.get(record.uid)?.controller === controller) this.#watches.delete(record.uid);
        if (controller.signal.aborted || this.#stopped) return;
        const current = this.#store.monitors.byUid(record.uid);
        if (current && isActive(current.state)) this.#end(current, "exited", detail);
      },
    });
  }

  /** A watch's batch window closed: one wake for every event since the last wake. */
  #eventsWake(uid: number): void {
    const now = this.#now();
    this.#store.tx(() => {
      const record = this.#store.monitors.byUid(uid);
      if (!record || !isActive(record.state) || record.eventCount <= record.wakedSeq) return;
      insertWake(this.#endingDeps, record, "events", `events:${uid}:${record.eventCount}`, null, now);
    });
    this.#changed(this.#record(uid).sessionId);
  }

  // ------------------------------------------------------------------ endings and wakes

  /** Ends a monitor once, with one reason; every ending but an explicit stop wakes its owner. */
  #end(record: MonitorRecord, reason: EndingReason, detail: string): void {
    const now = this.#now();
    const ended = this.#store.tx(() => {
      const fresh = this.#store.monitors.byUid(record.uid);
      return fresh ? endInTx(this.#endingDeps, fresh, reason, detail, now) : false;
    });
    if (ended) {
      this.#abortWork(record.uid);
      this.#changed(record.sessionId);
      this.#scheduler.poke();
    }
  }

  /** Stops whatever runs for a monitor: its check (result discarded) or its watch process. */
  #abortWork(uid: number): void {
    this.#checks.get(uid)?.abort();
    this.#checks.delete(uid);
    const watch = this.#watches.get(uid);
    if (watch) {
      watch.batch.close();
      watch.controller.abort();
      this.#watches.delete(uid);
    }
    this.#secretEnv.delete(uid);
  }
}
