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
import type { SessionSandbox } from "../../../shared/schemas/sandbox.js";
import type { CheckLoadView, EndingReason, MonitorView, WakeView } from "../../../shared/schemas/views.js";
import { ConflictError, NotFoundError } from "../base/errors.js";
import { type Logger, toError } from "../base/log.js";
import type { BrowserRequester } from "../browser/link.js";
import type { Changes } from "../core/changes.js";
import { clearEnded } from "../core/clear-ended.js";
import { controlMonitor } from "../core/control.js";
import { dismissWake } from "../core/dismiss-wake.js";
import { type EndingDeps, endInTx } from "../core/endings.js";
import { acceptEventInTx, matchPastEventsInTx } from "../core/event-match.js";
import { isActive } from "../core/states.js";
import { probeFor } from "../probes/registry.js";
import type { Vault } from "../secrets/vault.js";
import type { Engine as Store, Tables } from "../store/engine.js";
import type { MonitorRecord } from "../store/monitors.js";
import type { SessionRow } from "../store/sessions.js";
import { checkLimits, monitorRow, prepareMonitor } from "./arming.js";
import { CheckRunner, type SignalTriggers } from "./check-runner.js";
import { checkSandboxFor, spawnsCommand } from "./check-sandbox.js";
import { Queries } from "./queries.js";
import { SecretEnv } from "./run-context.js";
import { Scheduler } from "./scheduler.js";
import { needsSeal, type Sealer, UNSEALED_CHECK } from "./seals.js";
import { WatchRunner } from "./watch-runner.js";

/** A monitor by uid, read again (it must still exist). */
async function recordOf(tables: Tables, uid: number): Promise<MonitorRecord> {
  const record = await tables.monitors.byUid(uid);
  if (!record) throw new NotFoundError(`Monitor ${uid} no longer exists`);
  return record;
}

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
  /** This daemon's host (team mode): it runs its sessions' host-bound checks and the host-free ones. */
  hostId: string;
  /** Seals what this host arms and verifies it before it runs (engine/seals.ts). */
  sealer: Sealer;
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
  readonly #hostId: string;
  readonly #watches: WatchRunner;
  readonly #sealer: Sealer;

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
    this.#hostId = options.hostId;
    this.#sealer = options.sealer;
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
      hostId: options.hostId,
      sealer: options.sealer,
      poke: () => this.poke(),
    });
    this.#watches = new WatchRunner(shared);
    this.#scheduler = new Scheduler(
      {
        now: this.#now,
        nextAt: () => this.#checks.nextAt(),
        tick: (now) => this.#checks.tick(now),
        onError: (error) =>
          this.#log.error(`the check scheduler failed (it tries again in 1 s): ${toError(error).message}`),
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
  async start(): Promise<void> {
    const { monitors } = this.#store.tables;
    const host = this.#hostId;
    for (const { uid, interrupted } of await monitors.interruptLeases(host)) {
      const record = interrupted > UNCLEAN_STOPS_TOLERATED ? await monitors.byUid(uid) : undefined;
      if (record) {
        const detail = `its check was in flight when the daemon stopped uncleanly ${interrupted} times in a row (killed, crashed or hung during it), so it was not resumed`;
        await this.#end(record, "error", detail);
      }
    }
    for (const record of await monitors.armedOfMode("stream", host)) {
      await this.#end(record, "lost", "the Vigil daemon restarted; the watched process ended with it");
    }
    for (const record of await monitors.armedOfMode("poll", host)) {
      const { condition, fallback } = record.source as { condition?: Condition; fallback?: { condition?: Condition } };
      const refusal = unrunnableRegex(condition) ?? unrunnableRegex(fallback?.condition);
      if (refusal) {
        await this.#end(record, "error", `its condition can no longer be evaluated: ${refusal}`);
        continue;
      }
      const missing = await this.#secretEnv.resolve(record, "resume");
      if (missing) await this.#end(record, "error", `vault key ${missing} was removed while the daemon was down`);
    }
    this.poke();
  }

  /** A clean stop: running checks are stopped and their leases released, so none counts as interrupted. */
  async stop(): Promise<void> {
    this.#scheduler.stop();
    this.#checks.stop();
    this.#watches.stop();
    try {
      await this.#store.tables.monitors.clearLeases(this.#hostId);
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

  /**
   * Team mode: another host may have ended a watch that runs here (its deadline, a matching event,
   * a cancel through that host's API). Its process stops here once the monitor is seen ended; the
   * team link calls this when another host changed something, and at every heartbeat.
   */
  async stopWatchesEndedElsewhere(): Promise<void> {
    const uids = this.#watches.uids();
    if (uids.length === 0) return;
    const armed = new Set(
      (await this.#store.tables.monitors.byUids(uids)).filter((r) => isActive(r.state)).map((r) => r.uid),
    );
    for (const uid of uids) if (!armed.has(uid)) this.#abortWork(uid);
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
  checkLoad(countWaiting = true): Promise<CheckLoadView> {
    return this.#checks.load(this.#now(), countWaiting);
  }

  // ------------------------------------------------------------------ sessions

  async createSession(input: SessionCreate): Promise<{ session: SessionRow; created: boolean }> {
    const id = input.id ?? `s-${crypto.randomUUID().slice(0, 8)}`;
    // Looked for and inserted in one transaction: two requests creating the same id make it once.
    const hostId = this.#hostId;
    const existing = await this.#store.tx(async (t) => {
      const found = await t.sessions.get(id);
      if (found) return found;
      // The adapter is set through Delivery.setAdapter (a webhook needs its secret made there).
      const row = { id, label: input.label ?? null, root: input.root ?? null, adapter: { kind: "inbox" as const } };
      const adapterSeal = this.#sealer.sealSession({ ...row, webhookSecret: null, sandbox: null });
      await t.sessions.insert({ ...row, createdAt: this.#now(), hostId, adapterSeal });
      return undefined;
    });
    if (existing) {
      // Another host's session: its agent runs there (design.md §9.1); the same id made here would
      // mix two agents' wakes.
      if (existing.hostId !== null && existing.hostId !== hostId) {
        throw new ConflictError(
          `Expected session ${id} to be new or this host's, got a session of host ${await this.#hostName(existing.hostId)}: its agent runs there; use another session id here`,
        );
      }
      return { session: existing, created: false };
    }
    return { session: await this.queries.session(id), created: true };
  }

  /**
   * Team mode (#37): a write that concerns a session is taken only by the daemon of its session's
   * host, since what it arms, sets or ends runs (or wakes an agent) there. Another host's session is
   * a 409 naming that host; a session of no host yet (made before hosts) is anyone's until the
   * first host to start adopts it. `what` says what was asked ("POST /api/sessions/:sid/monitors").
   * Absent sessions pass: the route answers 404 itself.
   */
  async checkSessionHost(sessionId: string, what: string): Promise<void> {
    const session = await this.#store.tables.sessions.get(sessionId);
    if (!session || session.hostId === null || session.hostId === this.#hostId) return;
    throw new ConflictError(
      `Expected ${what} through the daemon of its session's host, got session ${sessionId} of host ${await this.#hostName(session.hostId)}: ask that host's daemon there`,
    );
  }

  /** A host as people know it: its name (and its id, which the database's rows carry). */
  async #hostName(id: string): Promise<string> {
    const host = await this.#store.tables.hosts.byId(id);
    return host ? `${host.name} (${id})` : id;
  }

  /** What the session's agent reports of its sandbox; checks armed before keep theirs. */
  async setSessionSandbox(id: string, sandbox: SessionSandbox): Promise<void> {
    await this.queries.session(id);
    // Sealed with the rest of the row under its lock, so a check armed later trusts only this.
    await this.#store.tx(async (t) => {
      await t.sessions.lockForUpdate(id);
      const current = await t.sessions.get(id);
      if (current) await t.sessions.setSandbox(id, sandbox, this.#sealer.sealSession({ ...current, sandbox }));
    });
  }

  async setSessionLabel(id: string, label: string): Promise<void> {
    await this.queries.session(id);
    await this.#store.tables.sessions.setLabel(id, label);
  }

  /** Deleting a session cancels everything it owns, so nothing old can resume it. */
  async deleteSession(id: string): Promise<void> {
    await this.queries.session(id);
    const now = this.#now();
    const records = await this.#store.tx(async (t) => {
      const owned = await t.monitors.list(id);
      for (const record of owned) {
        const waitpoint = record.kind === "signal" ? await t.waitpoints.byUid(record.uid) : undefined;
        if (waitpoint) await t.waitpoints.tombstone(record.id, waitpoint.secretHash, now);
      }
      return owned;
    });
    for (const record of records) this.#abortWork(record.uid);
    await this.#store.tables.sessions.delete(id);
    this.#changed(id);
    this.poke();
  }

  // ------------------------------------------------------------------ monitors

  async createMonitor(sessionId: string, body: MonitorCreate): Promise<MonitorView> {
    const session = await this.queries.session(sessionId);
    const now = this.#now();
    const known = await this.#vault.keys();
    const prepared = prepareMonitor(body, (key) => known.has(key), now);
    const { source, probe } = prepared;
    await this.checkSessionHost(sessionId, "arming a monitor");
    const record = await this.#store.tx(async (t) => {
      await t.sessions.lockForUpdate(sessionId);
      await checkLimits(t, sessionId, probe);
      // Read under the session's lock: the sandbox it reports now is the one the check keeps.
      const current = (await t.sessions.get(sessionId)) ?? session;
      // A row this host did not seal (a peer's write, one made before seals on PostgreSQL) may have
      // had its sandbox cleared or widened: nothing that runs a command is armed from it.
      if (spawnsCommand(source.kind) && !this.#sealer.sessionVerifies(current))
        throw new ConflictError(
          `Expected session ${sessionId}'s row to carry this host's seal to arm a ${source.kind} check, got one this host did not seal (changed by another host, or made before seals); start a new session`,
        );
      const sandbox = checkSandboxFor(current, source.kind);
      const id = `mon-${await t.sessions.nextMonitorSeq(sessionId)}`;
      const uid = await t.monitors.insert({
        ...monitorRow(sessionId, id, body, prepared, this.#endings.shield, now, session.hostId),
        sandbox,
      });
      // Sealed over the row as stored (uid and sandbox included), in the transaction that makes it.
      const stored = await recordOf(t, uid);
      if (needsSeal(stored)) await t.monitors.setSeal(uid, this.#sealer.sealTrigger(stored));
      return recordOf(t, uid);
    });
    await this.#secretEnv.resolve(record, "start");
    if (probe.mode === "poll") this.#checks.recount();
    if (probe.mode === "stream") {
      if (this.#sealer.triggerVerifies(record)) this.#watches.start(record, probe, session);
      else await this.#end(record, "error", UNSEALED_CHECK);
    }
    if (source.kind === "event" && source.lookbackSeconds > 0) {
      const lookback = source.lookbackSeconds;
      if (await this.#store.tx((t) => matchPastEventsInTx(t, this.#endings, record, lookback, now))) {
        this.#abortWork(record.uid);
      }
    }
    this.#changed(sessionId);
    this.poke();
    const view = await this.queries.view(await recordOf(this.#store.tables, record.uid));
    const adjusted = prepared.timing.adjusted;
    return adjusted ? { ...view, adjusted } : view;
  }

  /** An inbound event: persisted and matched in one transaction, before the route answers 202. */
  async postEvent(sessionId: string, event: EventPost): Promise<{ accepted: true; event: number; ended: string[] }> {
    await this.queries.session(sessionId);
    const now = this.#now();
    const result = await this.#store.tx((t) => acceptEventInTx(t, this.#endings, sessionId, event, now));
    for (const record of result.ended) this.#abortWork(record.uid);
    this.#changed(sessionId);
    this.poke();
    return { accepted: true, event: result.id, ended: result.ended.map((r) => r.id) };
  }

  /** Pause, resume or cancel (core/control.ts); a cancel also stops the running work. */
  async control(sessionId: string, id: string, action: ControlAction): Promise<MonitorView> {
    const record = await this.queries.monitor(sessionId, id);
    await controlMonitor(this.#store, record, action, this.#now());
    if (action === "cancel") this.#abortWork(record.uid);
    this.#changed(sessionId);
    this.poke();
    return this.queries.view(await recordOf(this.#store.tables, record.uid));
  }

  /** A person sets a wake aside (core/dismiss-wake.ts): cancelled, never delivered. */
  async dismissWake(sessionId: string, wakeId: string): Promise<WakeView> {
    await this.queries.session(sessionId);
    const view = await dismissWake(this.#store, sessionId, wakeId, this.#now());
    this.#changed(sessionId);
    return view;
  }

  /** The session's ended monitors leave the panel's list (core/clear-ended.ts). */
  async clearEnded(sessionId: string): Promise<{ cleared: string[] }> {
    await this.queries.session(sessionId);
    const result = await clearEnded(this.#store, sessionId, this.#now());
    if (result.cleared.length > 0) this.#changed(sessionId);
    return result;
  }

  /** Ends a monitor once, with one reason; every ending but an explicit stop wakes its owner. */
  async #end(record: MonitorRecord, reason: EndingReason, detail: string): Promise<void> {
    const now = this.#now();
    const ended = await this.#store.tx(async (t) => {
      await t.monitors.lockForUpdate(record.uid);
      const fresh = await t.monitors.byUid(record.uid);
      return fresh ? endInTx(t, this.#endings, fresh, reason, detail, now) : false;
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
