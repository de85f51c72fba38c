/**
 * The engine: the one façade every interface calls (through the HTTP routes) for sessions,
 * monitors, inbound events and control; nothing else writes monitor state. It owns the scheduler
 * and its two runners (checks, watches); its peers (vault, shield, browser link, waitpoints) are
 * built by the composition root and handed in.
 * Design: docs/design.md §1, §4.
 */
import { unrunnableRegex } from "../../../shared/conditions.js";
import type { Condition } from "../../../shared/schemas/conditions.js";
import type { ControlAction, EventPost, MonitorCreate, SessionCreate } from "../../../shared/schemas/inputs.js";
import type { CheckLoadView, EndingReason, MonitorView, WakeView } from "../../../shared/schemas/views.js";
import { NotFoundError } from "../base/errors.js";
import { type Logger, toError } from "../base/log.js";
import type { BrowserRequester } from "../browser/link.js";
import type { Changes } from "../core/changes.js";
import { clearEnded } from "../core/clear-ended.js";
import { controlMonitor } from "../core/control.js";
import { dismissWake } from "../core/dismiss-wake.js";
import { type EndingDeps, endInTx } from "../core/endings.js";
import { acceptEventInTx, matchPastEventsInTx } from "../core/event-match.js";
import { probeFor } from "../probes/registry.js";
import type { Vault } from "../secrets/vault.js";
import type { MonitorRecord } from "../store/monitors.js";
import type { SessionRow } from "../store/sessions.js";
import type { Store } from "../store/store.js";
import { checkLimits, monitorRow, prepareMonitor } from "./arming.js";
import { CheckRunner, type SignalTriggers } from "./check-runner.js";
import { Queries } from "./queries.js";
import { SecretEnv } from "./run-context.js";
import { Scheduler } from "./scheduler.js";
import { WatchRunner } from "./watch-runner.js";

/**
 * The check scheduler's ticks are at least this far apart: at hundreds of checks a second, the
 * checks due within it start together (one query, one lease transaction). A check starts at most
 * this much later than its due time for it; a lone one is not moved.
 */
export const TICK_GAP_MS = 100;

/**
 * Unclean stops in a row that a monitor's check may be caught in flight by (kill -9, a crash, the
 * OOM killer, a hang someone killed); at the next one it is not resumed but ends with an error,
 * so a check that brings the daemon down cannot keep doing so at every start.
 */
export const UNCLEAN_STOPS_TOLERATED = 2;

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
  /** The read side (views), on the same store. */
  readonly queries: Queries;
  readonly #store: Store;
  readonly #log: Logger;
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
    this.#log = options.log;
    this.queries = new Queries(options.store, options.endings.shield, options.now);
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
    this.#scheduler = new Scheduler(
      {
        now: this.#now,
        nextAt: () => this.#checks.nextAt(),
        tick: (now) => this.#checks.tick(now),
      },
      TICK_GAP_MS,
    );
  }

  // ------------------------------------------------------------------ lifecycle

  /**
   * Resumes after a (clean or crashed) stop: polls resume at their due time, watches are lost. A
   * monitor whose check an unclean stop caught in flight for the third time in a row, or whose
   * regex RE2 cannot run (armed before it), ends with an error instead.
   */
  start(): void {
    const store = this.#store;
    for (const { uid, interrupted } of store.monitors.interruptLeases()) {
      const record = interrupted > UNCLEAN_STOPS_TOLERATED ? store.monitors.byUid(uid) : undefined;
      if (record) {
        const detail = `its check was in flight when the daemon stopped uncleanly ${interrupted} times in a row (killed, crashed or hung during it), so it was not resumed`;
        this.#end(record, "error", detail);
      }
    }
    for (const record of store.monitors.armedOfMode("stream")) {
      this.#end(record, "lost", "the Vigil daemon restarted; the watched process ended with it");
    }
    for (const record of store.monitors.armedOfMode("poll")) {
      const { condition, fallback } = record.source as { condition?: Condition; fallback?: { condition?: Condition } };
      const refusal = unrunnableRegex(condition) ?? unrunnableRegex(fallback?.condition);
      if (refusal) {
        this.#end(record, "error", `its condition can no longer be evaluated: ${refusal}`);
        continue;
      }
      const missing = this.#secretEnv.resolve(record, "resume");
      if (missing) this.#end(record, "error", `vault key ${missing} was removed while the daemon was down`);
    }
    this.poke();
  }

  /** A clean stop: running checks are stopped and their leases released, so none counts as interrupted. */
  stop(): void {
    this.#scheduler.stop();
    this.#checks.stop();
    this.#watches.stop();
    try {
      this.#store.monitors.clearLeases();
    } catch (error) {
      this.#log.warn(
        `releasing the running checks' leases failed (they count as interrupted): ${toError(error).message}`,
      );
    }
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

  /** Whether checks keep up (overload: design.md §3). */
  checkLoad(): CheckLoadView {
    return this.#checks.load(this.#now());
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
    return { session: this.queries.session(id), created: true };
  }

  setSessionLabel(id: string, label: string): void {
    this.queries.session(id);
    this.#store.sessions.setLabel(id, label);
  }

  /** Deleting a session cancels everything it owns, so nothing old can resume it. */
  deleteSession(id: string): void {
    this.queries.session(id);
    const now = this.#now();
    this.#store.tx(() => {
      for (const record of this.#store.monitors.list(id)) {
        const waitpoint = record.kind === "signal" ? this.#store.waitpoints.byUid(record.uid) : undefined;
        if (waitpoint) this.#store.waitpoints.tombstone(record.id, waitpoint.secretHash, now);
      }
    });
    for (const record of this.#store.monitors.list(id)) this.#abortWork(record.uid);
    this.#store.sessions.delete(id);
    this.#changed(id);
    this.poke();
  }

  // ------------------------------------------------------------------ monitors

  createMonitor(sessionId: string, body: MonitorCreate): MonitorView {
    const session = this.queries.session(sessionId);
    const now = this.#now();
    const prepared = prepareMonitor(body, (key) => this.#vault.has(key), now);
    const { source, probe } = prepared;
    const record = this.#store.tx(() => {
      checkLimits(this.#store, sessionId, probe);
      const id = `mon-${this.#store.sessions.nextMonitorSeq(sessionId)}`;
      const uid = this.#store.monitors.insert(monitorRow(sessionId, id, body, prepared, this.#endings.shield, now));
      return this.#record(uid);
    });
    this.#secretEnv.resolve(record, "start");
    if (probe.mode === "poll") this.#checks.recount();
    if (probe.mode === "stream") this.#watches.start(record, probe, session);
    if (source.kind === "event" && source.lookbackSeconds > 0) {
      const lookback = source.lookbackSeconds;
      if (this.#store.tx(() => matchPastEventsInTx(this.#endings, record, lookback, now))) this.#abortWork(record.uid);
    }
    this.#changed(sessionId);
    this.poke();
    const view = this.queries.view(this.#record(record.uid));
    const adjusted = prepared.timing.adjusted;
    return adjusted ? { ...view, adjusted } : view;
  }

  /** An inbound event: persisted and matched in one transaction, before the route answers 202. */
  postEvent(sessionId: string, event: EventPost): { accepted: true; event: number; ended: string[] } {
    this.queries.session(sessionId);
    const now = this.#now();
    const result = this.#store.tx(() => acceptEventInTx(this.#endings, sessionId, event, now));
    for (const record of result.ended) this.#abortWork(record.uid);
    this.#changed(sessionId);
    this.poke();
    return { accepted: true, event: result.id, ended: result.ended.map((r) => r.id) };
  }

  /** Pause, resume or cancel (core/control.ts); a cancel also stops the running work. */
  control(sessionId: string, id: string, action: ControlAction): MonitorView {
    const record = this.queries.monitor(sessionId, id);
    controlMonitor(this.#store, record, action, this.#now());
    if (action === "cancel") this.#abortWork(record.uid);
    this.#changed(sessionId);
    this.poke();
    return this.queries.view(this.#record(record.uid));
  }

  /** A person sets a wake aside (core/dismiss-wake.ts): cancelled, never delivered. */
  dismissWake(sessionId: string, wakeId: string): WakeView {
    this.queries.session(sessionId);
    const view = dismissWake(this.#store, sessionId, wakeId, this.#now());
    this.#changed(sessionId);
    return view;
  }

  /** The session's ended monitors leave the panel's list (core/clear-ended.ts). */
  clearEnded(sessionId: string): { cleared: string[] } {
    this.queries.session(sessionId);
    const result = clearEnded(this.#store, sessionId, this.#now());
    if (result.cleared.length > 0) this.#changed(sessionId);
    return result;
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
