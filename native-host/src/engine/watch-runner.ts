/**
 * The watch runner: one long-running process per watch, its lines appended as events, batched into
 * wakes by the core's WatchBatch; a watch that exits or floods (over 60 events a minute) ends.
 * Design: docs/design.md §3.
 */
import type { EndingReason } from "../../../shared/schemas/views.js";
import { inBackground } from "../base/log.js";
import type { EndingDeps } from "../core/endings.js";
import { insertWake } from "../core/endings.js";
import { isActive } from "../core/states.js";
import { WatchBatch } from "../core/watch-batch.js";
import type { StreamProbe } from "../probes/probe.js";
import type { Engine as Store } from "../store/engine.js";
import type { MonitorRecord } from "../store/monitors.js";
import type { SessionRow } from "../store/sessions.js";
import { cwdFor, type SecretEnv } from "./run-context.js";

export interface WatchRunnerDeps {
  store: Store;
  now: () => number;
  endings: EndingDeps;
  secretEnv: SecretEnv;
  end(record: MonitorRecord, reason: EndingReason, detail: string): Promise<void>;
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
    const { log } = endings;
    const controller = new AbortController();
    const named = `watch ${record.sessionId}/${record.id}`;
    // One watch's store work in the order its lines came: each line's event, its wakes, its ending.
    // (Started at once, the appends of lines printed together could commit in another order on an
    // engine with several connections.)
    let queue: Promise<unknown> = Promise.resolve();
    const inOrder = (what: string, work: () => Promise<unknown>) => {
      queue = queue.then(work);
      inBackground(log, `${what} of ${named}`, queue);
      queue = queue.catch(() => undefined);
    };
    const batch = new WatchBatch({
      now: this.deps.now,
      record: (line) => {
        const at = this.deps.now();
        const text = endings.shield.text(line);
        inOrder("recording a line", async () => {
          await store.tables.events.append(record.uid, text, at);
          this.deps.changed(record.sessionId);
        });
      },
      flush: () => inOrder("the wake", () => this.#eventsWake(record.uid)),
      rateLimited: () =>
        inOrder("stopping", async () => {
          const current = await store.tables.monitors.byUid(record.uid);
          if (current) {
            await this.deps.end(
              current,
              "rate_limited",
              "more than 60 events in a sliding minute; the watch was stopped",
            );
          }
        }),
    });
    this.#running.set(record.uid, { controller, batch });
    probe.start(record.source, {
      signal: controller.signal,
      cwd: cwdFor(record, session),
      env: this.deps.secretEnv.of(record.uid),
      sandbox: record.trigger?.sandbox ?? null,
      onLine: (line) => batch.line(line),
      onExit: (_exitCode, detail) => {
        batch.close();
        if (this.#running.get(record.uid)?.controller === controller) this.#running.delete(record.uid);
        if (controller.signal.aborted || this.#stopped) return;
        inOrder("ending", async () => {
          const current = await store.tables.monitors.byUid(record.uid);
          if (current && isActive(current.state)) await this.deps.end(current, "exited", detail);
        });
      },
    });
  }

  /** The monitors whose watch runs here now. */
  uids(): number[] {
    return [...this.#running.keys()];
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
  async #eventsWake(uid: number): Promise<void> {
    const { store, endings } = this.deps;
    const now = this.deps.now();
    const sessionId = await store.tx(async (t) => {
      await t.monitors.lockForUpdate(uid);
      const record = await t.monitors.byUid(uid);
      if (!record || !isActive(record.state) || record.eventCount <= record.wakedSeq) return record?.sessionId;
      await insertWake(t, endings, record, "events", `events:${uid}:${record.eventCount}`, null, now);
      return record.sessionId;
    });
    if (sessionId) this.deps.changed(sessionId);
  }
}
