/**
 * The check runner: on each scheduler tick it ends what passed its deadline, fires due waitpoint
 * triggers, and starts the polled checks that are due (at most `concurrency` at once, one spawn per
 * turn of the event loop), then records each result through the core's poll step.
 * Design: docs/design.md §3, §4.3.
 */
import type { EndingReason } from "../../../shared/schemas/views.js";
import { type Logger, toError } from "../base/log.js";
import type { BrowserRequester } from "../browser/link.js";
import type { CheckResult } from "../core/check-result.js";
import type { EndingDeps } from "../core/endings.js";
import { LagStats } from "../core/lag-stats.js";
import { recordCheckInTx } from "../core/record-check.js";
import { isActive } from "../core/states.js";
import type { PollProbe } from "../probes/probe.js";
import { probeFor } from "../probes/registry.js";
import type { MonitorRecord } from "../store/monitors.js";
import type { Store } from "../store/store.js";
import { cwdFor, type SecretEnv } from "./run-context.js";

/** What the runner needs from a waitpoint trigger (the core's Waitpoints). */
export interface SignalTriggers {
  deadlineDetail(record: MonitorRecord): string;
  fireDue(record: MonitorRecord, now: number): void;
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
  /** Ends a monitor (and stops its work). */
  end(record: MonitorRecord, reason: EndingReason, detail: string): void;
  changed(sessionId: string): void;
  poke(): void;
}

export class CheckRunner {
  /** How late each check started against its due time. */
  readonly lag = new LagStats();
  /** Checks in flight, by monitor uid: aborted when the monitor ends or is deleted. */
  readonly #running = new Map<number, AbortController>();
  #polled = { count: 1, at: Number.NEGATIVE_INFINITY };
  #stopped = false;

  constructor(private readonly deps: CheckRunnerDeps) {}

  get running(): number {
    return this.#running.size;
  }

  /** The next time anything is due: a deadline always, a check only while a slot is free. */
  nextAt(): number | null {
    const { due, deadline } = this.deps.store.monitors.nextTimes();
    // With every check slot busy, only deadlines can be acted on; a finishing check pokes again.
    const usable = this.#running.size >= this.deps.concurrency ? null : due;
    if (usable === null) return deadline;
    if (deadline === null) return usable;
    return Math.min(usable, deadline);
  }

  tick(now: number): void {
    if (this.#stopped) return;
    const { store, waitpoints } = this.deps;
    for (const record of store.monitors.expired(now)) {
      const detail =
        record.kind === "signal"
          ? waitpoints.deadlineDetail(record)
          : `deadline of ${Math.round(record.timeoutMs / 1000)}s passed`;
      this.deps.end(record, "timeout", detail);
    }
    const room = this.deps.concurrency - this.#running.size;
    if (room <= 0) return;
    for (const record of store.monitors.due(now, room)) {
      const probe = probeFor(record.kind);
      if (probe.mode === "signal") {
        waitpoints.fireDue(record, now);
        continue;
      }
      if (probe.mode !== "poll") continue;
      const timing = probe.timing({
        intervalSeconds: (record.intervalMs ?? 0) / 1000,
        timeoutSeconds: record.timeoutMs / 1000,
      });
      if (!store.monitors.lease(record.uid, now + timing.checkTimeoutMs + 5000)) continue;
      const dueAt = record.trigger?.nextDueAt ?? null;
      // One spawn per turn of the event loop: starting a process blocks it for milliseconds, and
      // the API must keep answering when many checks fall due together.
      setImmediate(() => {
        if (this.#stopped) return;
        // Lateness is measured here, as the check starts, not when it was picked.
        if (dueAt !== null) this.lag.record(this.deps.now() - dueAt);
        void this.#run(record, probe, timing.checkTimeoutMs);
      });
    }
  }

  /** A polled monitor was armed: the count that spreads checks over their interval is read again. */
  recount(): void {
    this.#polled.at = Number.NEGATIVE_INFINITY;
  }

  /** Stops a monitor's running check; its result is discarded. */
  abort(uid: number): void {
    this.#running.get(uid)?.abort();
    this.#running.delete(uid);
  }

  stop(): void {
    this.#stopped = true;
    for (const controller of this.#running.values()) controller.abort();
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
        cwd: cwdFor(record, store.sessions.get(record.sessionId)),
        env: secretEnv.of(record.uid),
        timeoutMs,
        browser: this.deps.browser,
        label: record.name,
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
    try {
      this.#record(record.uid, probe, result, performance.now() - started);
    } catch (error) {
      this.deps.log.error(`recording a check of monitor ${record.uid} failed: ${toError(error).message}`);
    }
    this.deps.poke();
  }

  #record(uid: number, probe: PollProbe, result: CheckResult, durationMs: number): void {
    const { store, endings } = this.deps;
    const now = this.deps.now();
    const polled = this.#polledMonitors(now);
    store.tx(() => recordCheckInTx(endings, uid, probe, result, now, durationMs, polled));
    const record = store.monitors.byUid(uid);
    if (!record) return;
    if (!isActive(record.state)) this.deps.secretEnv.forget(uid);
    this.deps.changed(record.sessionId);
  }

  /** How many polled monitors are armed, counted again at most once a second. */
  #polledMonitors(now: number): number {
    if (now - this.#polled.at >= 1000) this.#polled = { count: this.deps.store.monitors.countPolled(), at: now };
    return this.#polled.count;
  }
}
