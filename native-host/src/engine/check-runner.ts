/**
 * The check runner: on each scheduler tick it ends what passed its deadline, fires due waitpoint
 * triggers, and starts the polled checks that are due (at most `concurrency` at once; their leases
 * in one transaction; one spawn per turn of the event loop), then records the results through the
 * core's poll step — the results that arrive within RECORD_BATCH_MS of each other in one
 * transaction, one change per session. Under load that is what the daemon's CPU per check is
 * (docs/design.md §10): a commit per check cost more than the check's own process.
 * Design: docs/design.md §3, §4.3.
 */
import type { CheckLoadView, EndingReason, LateCheck } from "../../../shared/schemas/views.js";
import { type Logger, toError } from "../base/log.js";
import type { BrowserRequester } from "../browser/link.js";
import type { CheckResult } from "../core/check-result.js";
import type { EndingDeps } from "../core/endings.js";
import { LagStats } from "../core/lag-stats.js";
import { type RecordedCheck, recordCheckInTx, refuseCheckInTx } from "../core/record-check.js";
import { isActive } from "../core/states.js";
import type { PollProbe } from "../probes/probe.js";
import { probeFor } from "../probes/registry.js";
import type { Engine as Store, Tables } from "../store/engine.js";
import type { MonitorRecord } from "../store/monitors.js";
import { cwdFor, type SecretEnv } from "./run-context.js";
import { type Sealer, UNSEALED_CHECK } from "./seals.js";

/** What the runner needs from a waitpoint trigger (the core's Waitpoints). */
export interface SignalTriggers {
  deadlineDetail(tables: Tables, record: MonitorRecord): Promise<string>;
  /** Inside the caller's transaction: a settled or held-back wake goes out now. */
  fireDueInTx(t: Tables, record: MonitorRecord, now: number): Promise<void>;
}

export interface CheckRunnerDeps {
  store: Store;
  log: Logger;
  now: () => number;
  concurrency: number;
  endings: EndingDeps;
  browser: BrowserRequester;
  secretEnv: SecretEnv;
  waitpoints: SignalTriggers;
  /** This daemon's host: the checks it takes are its own and the host-free ones. */
  hostId: string;
  /** Verifies that this host armed a host-bound check before it runs (engine/seals.ts). */
  sealer: Sealer;
  /** Ends a monitor (and stops its work). */
  end(record: MonitorRecord, reason: EndingReason, detail: string): Promise<void>;
  changed(sessionId: string): void;
  poke(): void;
}

/**
 * Under load, check results are recorded together when they arrive within this many ms of the
 * first (after a quiet second, at once): one transaction and one change per session for the batch.
 */
export const RECORD_BATCH_MS = 50;

/** A check that starts later than this after its due time counts as late (overload, design.md §3). */
export const LATE_MS = 1000;
/** How long a late check keeps the daemon reported as overloaded. */
const LATE_WINDOW_MS = 60_000;

/** A finished check waiting for its batch's transaction. */
interface Finished {
  uid: number;
  probe: PollProbe;
  result: CheckResult;
  durationMs: number;
  controller: AbortController;
}

export class CheckRunner {
  /** How late each check started against its due time. */
  readonly lag = new LagStats();
  /** Checks in flight, by monitor uid: aborted when the monitor ends or is deleted. */
  readonly #running = new Map<number, AbortController>();
  #polled = { count: 1, at: Number.NEGATIVE_INFINITY };
  #finished: Finished[] = [];
  #flush: NodeJS.Timeout | null = null;
  #lastFlush = Number.NEGATIVE_INFINITY;
  /** The latest late start of each wait that started late in the last minute, by uid. */
  readonly #late = new Map<number, LateCheck & { atMs: number }>();
  #stopped = false;
  /** This runner's first tick: a check due before it was due while the daemon was down (or starting). */
  #since: number | null = null;

  constructor(private readonly deps: CheckRunnerDeps) {}

  get running(): number {
    return this.#running.size;
  }

  /** The next time anything is due: a deadline always, a check only while a slot is free. */
  async nextAt(): Promise<number | null> {
    const { due, deadline } = await this.deps.store.tables.monitors.nextTimes(this.deps.hostId);
    // With every check slot busy, only deadlines can be acted on; a finishing check pokes again.
    const usable = this.#running.size >= this.deps.concurrency ? null : due;
    if (usable === null) return deadline;
    if (deadline === null) return usable;
    return Math.min(usable, deadline);
  }

  async tick(now: number): Promise<void> {
    if (this.#stopped) return;
    this.#since ??= now;
    const { store, waitpoints } = this.deps;
    for (const record of await store.tables.monitors.expired(now)) {
      const detail =
        record.kind === "signal"
          ? await waitpoints.deadlineDetail(store.tables, record)
          : `deadline of ${Math.round(record.timeoutMs / 1000)}s passed`;
      await this.deps.end(record, "timeout", detail);
    }
    const room = this.deps.concurrency - this.#running.size;
    if (room <= 0 || this.#stopped) return;
    // Earliest due first: a late check is never passed over by one due after it (no wait starves).
    const due = await store.tables.monitors.due(now, room, this.deps.hostId);
    const starts: Array<{ record: MonitorRecord; probe: PollProbe; timeoutMs: number }> = [];
    const fired = new Set<string>();
    const refused: MonitorRecord[] = [];
    await store.tx(async (t) => {
      starts.length = 0;
      fired.clear();
      refused.length = 0;
      for (const record of due) {
        const probe = probeFor(record.kind);
        if (probe.mode === "signal") {
          await t.monitors.lockForUpdate(record.uid);
          const fresh = await t.monitors.byUid(record.uid);
          if (fresh && isActive(fresh.state)) await waitpoints.fireDueInTx(t, fresh, now);
          fired.add(record.sessionId);
          continue;
        }
        // Its lease ran out while it still runs here (a result not yet recorded): not twice.
        if (probe.mode !== "poll" || this.#running.has(record.uid)) continue;
        // What runs is what was verified: the record read here is the one started below.
        if (!this.deps.sealer.triggerVerifies(record)) {
          if (await refuseCheckInTx(t, record.uid, UNSEALED_CHECK, now)) refused.push(record);
          continue;
        }
        const timing = probe.timing({
          intervalSeconds: (record.intervalMs ?? 0) / 1000,
          timeoutSeconds: record.timeoutMs / 1000,
        });
        if (await t.monitors.lease(record.uid, now + timing.checkTimeoutMs + 5000, this.deps.hostId, now)) {
          starts.push({ record, probe, timeoutMs: timing.checkTimeoutMs });
        }
      }
    });
    for (const record of refused) {
      this.deps.log.warn(`check of ${record.sessionId}/${record.id} ${UNSEALED_CHECK}`);
      fired.add(record.sessionId);
    }
    for (const sessionId of fired) this.deps.changed(sessionId);
    for (const { record, probe, timeoutMs } of starts) {
      const dueAt = record.trigger?.nextDueAt ?? null;
      // One spawn per turn of the event loop: starting a process from the daemon blocks it for
      // milliseconds, and the API must keep answering when many checks fall due together.
      setImmediate(() => {
        if (this.#stopped) return;
        // Lateness is measured here, as the check starts, not when it was picked.
        if (dueAt !== null) this.#started(record, this.deps.now(), dueAt);
        void this.#run(record, probe, timeoutMs);
      });
    }
  }

  /** Whether checks keep up: running, waiting for a slot, how late they start, which waits were late. */
  /** `countWaiting: false` leaves out the one read of the store (while the database is away). */
  async load(now: number, countWaiting = true): Promise<CheckLoadView> {
    for (const [uid, late] of this.#late) if (now - late.atMs > LATE_WINDOW_MS) this.#late.delete(uid);
    const late = [...this.#late.values()]
      .sort((a, b) => b.atMs - a.atMs)
      .slice(0, 5)
      .map(({ atMs: _, ...rest }) => rest);
    // With a slot free, a due check only waits for the next tick (TICK_GAP_MS): that is not overload.
    const waitingForSlot =
      countWaiting && this.#running.size >= this.deps.concurrency
        ? await this.deps.store.tables.monitors.countDue(now, this.deps.hostId)
        : 0;
    return {
      overloaded: waitingForSlot > 0 || this.#late.size > 0,
      running: this.#running.size,
      concurrency: this.deps.concurrency,
      waitingForSlot,
      lag: this.lag.summary(),
      late,
    };
  }

  #started(record: MonitorRecord, now: number, dueAt: number): void {
    // Due while the daemon was down: the downtime is not lateness (issue #38 item 9), and says
    // nothing of whether the settings keep checks on time.
    if (this.#since === null || dueAt < this.#since) return;
    const lateMs = now - dueAt;
    this.lag.record(lateMs);
    if (lateMs <= LATE_MS) return;
    this.#late.delete(record.uid); // re-inserted last: the Map stays in order of the latest late start
    if (this.#late.size >= 1000) this.#late.delete(this.#late.keys().next().value as number);
    this.#late.set(record.uid, {
      sessionId: record.sessionId,
      monitorId: record.id,
      name: record.name,
      lateMs,
      at: new Date(now).toISOString(),
      atMs: now,
    });
  }

  /** A polled monitor was armed: the count that spreads checks over their interval is read again. */
  recount(): void {
    this.#polled.at = Number.NEGATIVE_INFINITY;
  }

  /** Stops a monitor's running check; its result is discarded. */
  abort(uid: number): void {
    this.#running.get(uid)?.abort();
    this.#running.delete(uid);
    // A monitor stopped, ended or deleted is no longer named as late (overload).
    this.#late.delete(uid);
  }

  /** Results not yet recorded are dropped: leases are cleared at the next start, so those checks run again. */
  stop(): void {
    this.#stopped = true;
    for (const controller of this.#running.values()) controller.abort();
    if (this.#flush !== null) clearTimeout(this.#flush);
    this.#flush = null;
    this.#finished = [];
  }

  async #run(record: MonitorRecord, probe: PollProbe, timeoutMs: number): Promise<void> {
    const { store, secretEnv } = this.deps;
    const controller = new AbortController();
    this.#running.set(record.uid, controller);
    const started = performance.now();
    let result: CheckResult;
    try {
      result = await probe.check(record.source, {
        signal: controller.signal,
        cwd: await cwdFor(record, () => store.tables.sessions.root(record.sessionId)),
        env: await secretEnv.forCheck(record),
        timeoutMs,
        browser: this.deps.browser,
        label: record.name,
        sandbox: record.trigger?.sandbox ?? null,
      });
    } catch (error) {
      result = { outcome: "error", error: toError(error).message };
    } finally {
      if (this.#running.get(record.uid) === controller) this.#running.delete(record.uid);
    }
    if (controller.signal.aborted || this.#stopped) {
      this.deps.poke();
      return;
    }
    this.#finished.push({ uid: record.uid, probe, result, durationMs: performance.now() - started, controller });
    // Under load results wait for their batch; a result after a quiet second is recorded at once.
    const quiet = performance.now() - this.#lastFlush > 1000;
    this.#flush ??= setTimeout(() => void this.#recordFinished(), quiet ? 0 : RECORD_BATCH_MS);
  }

  /** Records the finished checks in one transaction; a monitor stopped meanwhile has its result dropped. */
  async #recordFinished(): Promise<void> {
    this.#flush = null;
    this.#lastFlush = performance.now();
    const batch = this.#finished.filter((finished) => !finished.controller.signal.aborted);
    this.#finished = [];
    if (batch.length === 0 || this.#stopped) return;
    const { store, endings } = this.deps;
    const now = this.deps.now();
    let recorded: Array<RecordedCheck | undefined> = [];
    try {
      const polled = await this.#polledMonitors(now);
      recorded = await store.tx(async (t) => {
        const out: Array<RecordedCheck | undefined> = [];
        for (const { uid, probe, result, durationMs } of batch) {
          out.push(await recordCheckInTx(t, endings, uid, probe, result, now, durationMs, polled));
        }
        return out;
      });
    } catch (error) {
      // Nothing of the batch was stored: the leases run out and those checks run again.
      this.deps.log.error(`recording ${batch.length} check result(s) failed: ${toError(error).message}`);
    }
    const sessions = new Set<string>();
    batch.forEach(({ uid }, i) => {
      const done = recorded[i];
      if (!done) return;
      if (!done.active) this.deps.secretEnv.forget(uid);
      sessions.add(done.sessionId);
    });
    for (const sessionId of sessions) this.deps.changed(sessionId);
    this.deps.poke();
  }

  /** How many polled monitors are armed, counted again at most once a second. */
  async #polledMonitors(now: number): Promise<number> {
    if (now - this.#polled.at >= 1000) {
      this.#polled = { count: await this.deps.store.tables.monitors.countPolled(), at: now };
    }
    return this.#polled.count;
  }
}
