/**
 * The watch runner: one long-running process per watch, its lines appended as events, batched into
 * wakes by the core's WatchBatch; a watch that exits or floods (over 60 events a minute) ends.
 * Design: docs/design.md §3.
 */
import type { EndingReason } from "../../../shared/schemas/views.js";
import type { EndingDeps } from "../core/endings.js";
import { insertWake } from "../core/endings.js";
import { isActive } from "../core/states.js";
import { WatchBatch } from "../core/watch-batch.js";
import type { StreamProbe } from "../probes/probe.js";
import type { MonitorRecord } from "../store/monitors.js";
import type { SessionRow } from "../store/sessions.js";
import type { Store } from "../store/store.js";
import { cwdFor, type SecretEnv } from "./run-context.js";

export interface WatchRunnerDeps {
  store: Store;
  now: () => number;
  endings: EndingDeps;
  secretEnv: SecretEnv;
  end(record: MonitorRecord, reason: EndingReason, detail: string): void;
  changed(sessionId: string): void;
}

interface RunningWatch {
  controller: AbortController;
  batch: WatchBatch;
}

export class WatchRunner {
  readonly #running = new Map<number, RunningWatch>();
  #stopped = false;

  constructor(private readonly deps: WatchRunnerDeps) {}

  start(record: MonitorRecord, probe: StreamProbe, session: SessionRow): void {
    const { store, endings } = this.deps;
    const controller = new AbortController();
    const batch = new WatchBatch({
      now: this.deps.now,
      record: (line) => {
        store.events.append(record.uid, endings.shield.text(line), this.deps.now());
        this.deps.changed(record.sessionId);
      },
      flush: () => this.#eventsWake(record.uid),
      rateLimited: () => {
        const current = store.monitors.byUid(record.uid);
        if (current)
          this.deps.end(current, "rate_limited", "more than 60 events in a sliding minute; the watch was stopped");
      },
    });
    this.#running.set(record.uid, { controller, batch });
    probe.start(record.source, {
      signal: controller.signal,
      cwd: cwdFor(record, session),
      env: this.deps.secretEnv.of(record.uid),
      onLine: (line) => batch.line(line),
      onExit: (_exitCode, detail) => {
        batch.close();
        if (this.#running.get(record.uid)?.controller === controller) this.#running.delete(record.uid);
        if (controller.signal.aborted || this.#stopped) return;
        const current = store.monitors.byUid(record.uid);
        if (current && isActive(current.state)) this.deps.end(current, "exited", detail);
      },
    });
  }

  /** Stops a watch's process. */
  abort(uid: number): void {
    const watch = this.#running.get(uid);
    if (!watch) return;
    watch.batch.close();
    watch.controller.abort();
    this.#running.delete(uid);
  }

  stop(): void {
    this.#stopped = true;
    for (const watch of this.#running.values()) {
      watch.batch.close();
      watch.controller.abort();
    }
  }

  /** A watch's batch window closed: one wake for every event since the last wake. */
  #eventsWake(uid: number): void {
    const { store, endings } = this.deps;
    const now = this.deps.now();
    let sessionId: string | undefined;
    store.tx(() => {
      const record = store.monitors.byUid(uid);
      sessionId = record?.sessionId;
      if (!record || !isActive(record.state) || record.eventCount <= record.wakedSeq) return;
      insertWake(endings, record, "events", `events:${uid}:${record.eventCount}`, null, now);
    });
    if (sessionId) this.deps.changed(sessionId);
  }
}
