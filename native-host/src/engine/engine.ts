/**
 * The engine: the one façade every interface calls (through the HTTP routes) for sessions,
 * monitors, inbound events and control; nothing else writes monitor state. It owns the scheduler
 * and its two runners (checks, watches); its peers (vault, shield, browser link, waitpoints) are
 * built by the composition root and handed in.
 * Design: docs/design.md §1, §4.
 */
import {
  type ControlAction,
  type EndingReason,
  type EventPost,
  formatZodError,
  type MonitorCreate,
  type MonitorEvent,
  type MonitorView,
  type SessionCreate,
  SourceSchema,
  type WakeView,
} from "../../../shared/schemas.js";
import { ConflictError, LimitError, NotFoundError, ValidationError } from "../base/errors.js";
import type { Logger } from "../base/log.js";
import type { BrowserRequester } from "../browser/link.js";
import type { Changes } from "../core/changes.js";
import { type EndingDeps, endInTx } from "../core/endings.js";
import { offerEvent } from "../core/event-match.js";
import { isActive, nextState, type MonitorEvent as StateEvent, TransitionError } from "../core/states.js";
import { toMonitorView } from "../core/views.js";
import { kindsInGroup, LIMITS, probeFor } from "../probes/registry.js";
import { secretKeysIn } from "../secrets/references.js";
import type { Vault } from "../secrets/vault.js";
import type { CheckEntry } from "../store/checks.js";
import type { MonitorRecord } from "../store/monitors.js";
import type { SessionRow } from "../store/sessions.js";
import type { Store } from "../store/store.js";
import { parseWakeId, toDeliveryView, toWakeView } from "../store/wakes.js";
import { CheckRunner, type SignalTriggers } from "./check-runner.js";
import { SecretEnv } from "./run-context.js";
import { Scheduler } from "./scheduler.js";
import { WatchRunner } from "./watch-runner.js";

export interface EngineOptions {
  store: Store;
  log: Logger;
  now: () => number;
  /** Checks running at once across all monitors. */
  concurrency?: number;
  endings: EndingDeps;
  changes: Changes;
  vault: Vault;
  /** The connected browser, for `browser` sources (none connected: their checks say so). */
  browser: BrowserRequester;
  waitpoints: SignalTriggers;
}

export class Engine {
  readonly #store: Store;
  readonly #now: () => number;
  readonly #endings: EndingDeps;
  readonly #changes: Changes;
  readonly #vault: Vault;
  readonly #scheduler: Scheduler;
  readonly #secretEnv: SecretEnv;
  readonly #checks: CheckRunner;
  readonly #watches: WatchRunner;

  constructor(options: EngineOptions) {
    this.#store = options.store;
    this.#now = options.now;
    this.#endings = options.endings;
    this.#changes = options.changes;
    this.#vault = options.vault;
    this.#secretEnv = new SecretEnv(options.vault, (record) =>
      probeFor(record.kind).secretText(record.source as never),
    );
    const shared = {
      store: options.store,
      now: options.now,
      endings: options.endings,
      secretEnv: this.#secretEnv,
      end: (record: MonitorRecord, reason: EndingReason, detail: string) => this.#end(record, reason, detail),
      changed: (sessionId: string) => this.#changes.emit(sessionId),
    };
    this.#checks = new CheckRunner({
      ...shared,
      log: options.log,
      concurrency: options.concurrency ?? 32,
      browser: options.browser,
      waitpoints: options.waitpoints,
      poke: () => this.poke(),
    });
    this.#watches = new WatchRunner(shared);
    this.#scheduler = new Scheduler({
      now: this.#now,
      nextAt: () => this.#checks.nextAt(),
      tick: (now) => this.#checks.tick(now),
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
      const missing = this.#secretEnv.resolve(record, "resume");
      if (missing) this.#end(record, "error", `vault key ${missing} was removed while the daemon was down`);
    }
    this.poke();
  }

  stop(): void {
    this.#scheduler.stop();
    this.#checks.stop();
    this.#watches.stop();
  }

  /** Something due changed: the scheduler reads the next due time again. */
  poke(): void {
    this.#scheduler.poke();
  }

  #changed(sessionId: string): void {
    this.#changes.emit(sessionId);
  }

  /** The time the scheduler's single timer is set for (for tests and `vigil status`). */
  get nextTimerAt(): number | null {
    return this.#scheduler.armedFor;
  }

  get runningChecks(): number {
    return this.#checks.running;
  }

  /** How late checks started against their due time. */
  get checkLag() {
    return this.#checks.lag;
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
    this.poke();
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
    const missing = secretKeysIn(probe.secretText(source)).find((key) => !this.#vault.has(key));
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
        name: body.name ?? this.#endings.shield.text(probe.defaultName(source)),
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
    this.#secretEnv.resolve(record, "start");
    if (probe.mode === "poll") this.#checks.recount();
    if (probe.mode === "stream") this.#watches.start(record, probe, session);
    if (source.kind === "event" && source.lookbackSeconds > 0)
      this.#offerPastEvents(record, source.lookbackSeconds, now);
    this.#changed(sessionId);
    this.poke();
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
        if (offerEvent(this.#endings, record, offered, now)) ended.push(record);
      }
      this.#store.inboundEvents.setMatched(
        id,
        ended.map((r) => r.id),
      );
      return { id, ended };
    });
    for (const record of result.ended) this.#abortWork(record.uid);
    this.#changed(sessionId);
    this.poke();
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
        if (fresh && offerEvent(this.#endings, fresh, offered, now)) {
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
    return toMonitorView(record, this.#endings.shield, latest ? toDeliveryView(latest) : null);
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
    this.poke();
    return this.view(this.#record(record.uid));
  }

  #record(uid: number): MonitorRecord {
    const record = this.#store.monitors.byUid(uid);
    if (!record) throw new NotFoundError(`Monitor ${uid} no longer exists`);
    return record;
  }

  /** Ends a monitor once, with one reason; every ending but an explicit stop wakes its owner. */
  #end(record: MonitorRecord, reason: EndingReason, detail: string): void {
    const now = this.#now();
    const ended = this.#store.tx(() => {
      const fresh = this.#store.monitors.byUid(record.uid);
      return fresh ? endInTx(this.#endings, fresh, reason, detail, now) : false;
    });
    if (ended) {
      this.#abortWork(record.uid);
      this.#changed(record.sessionId);
      this.poke();
    }
  }

  /** Stops whatever runs for a monitor: its check (result discarded) or its watch process. */
  #abortWork(uid: number): void {
    this.#checks.abort(uid);
    this.#watches.abort(uid);
    this.#secretEnv.forget(uid);
  }
}
