/**
 * WAL checkpoints and WAL syncs off the daemon's event loop.
 *
 * In WAL mode SQLite copies the log back into the database file every 1,000 pages, and it does so
 * inside whichever commit crossed the line: that commit (and every request queued behind it on
 * the one event loop) waits for the copy and its fsyncs. Here a worker thread holding its own
 * connection does that work instead, woken only after something was written (an idle daemon wakes
 * it never):
 *
 * `syncMs` after a write it either runs a PASSIVE checkpoint — it never blocks a writer — when the
 * last one is `everyMs` old, or else only syncs the WAL file (fdatasync), so that little is ever
 * left unsynced.
 *
 * A PASSIVE checkpoint cannot empty the WAL while the daemon keeps writing, so the log only starts
 * over in a checkpoint that holds the writer lock: the daemon connection's automatic one, inside a
 * commit on the event loop, or a RESTART. Each start-over costs an fsync under that lock, and the
 * commit that starts the log again syncs its header (SQLite requires it): 10–30 ms on this VM's disk,
 * whatever was copied. With the log started over every 10,000 pages that was a stall of 10–28 ms
 * about three times a second under a stream of signals (`BENCH_INGEST_TRACE`, bench/README.md), and
 * the daemon's own busy waits (SQLite sleeps 1, 2, 5, 10 … ms between tries) made each at least 8 ms.
 * So: the worker starts the log over itself when a checkpoint finds it at `RESTART_PAGES` (30,000,
 * ~120 MB) and has copied all of it — a RESTART right after, holding the writer lock only for what
 * came meanwhile — and the daemon's automatic checkpoint stays as a backstop at 40,000 pages for a
 * worker that is behind: start-overs every few seconds under a sustained stream, not several a
 * second. While the log grows by `BUSY_PAGES` or more between checkpoints they come every `syncMs`
 * instead of every `everyMs`, so each copy stays short. `Store.tx` retries a busy BEGIN every 50 µs
 * rather than sleeping in SQLite's steps. The WAL file is truncated back to 64 MB at most when it
 * starts over.
 *
 * Durability is unchanged for a crash (committed means in the WAL); the extra syncs shorten what a
 * power cut can lose with `synchronous=NORMAL` to the last `syncMs` or so.
 * Design: docs/design.md §9.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { Db } from "./db.js";

export const BACKSTOP_PAGES = 40_000;
/** A log this long that a checkpoint caught up with is started over by the worker. */
export const RESTART_PAGES = 30_000;
/** A checkpoint that found this much in the log: the next one comes after `syncMs`, not `everyMs`. */
export const BUSY_PAGES = 1_000;
const JOURNAL_SIZE_LIMIT = 64 * 1024 * 1024;

export const CHECKPOINT_TIMING = { syncMs: 100, everyMs: 1000 };
export type CheckpointTiming = typeof CHECKPOINT_TIMING;

// CommonJS run with `eval`, so it needs no file of its own beside the compiled code (and runs the
// same under vitest, which executes the TypeScript sources). It does what it is told, one message
// at a time: the schedule is kept on the daemon's side, where it can be tested.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { fdatasyncSync, openSync, closeSync } = require("node:fs");
const Database = require(workerData.sqlite);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma("busy_timeout = 1000");
let wal = null;
const report = (action, run) => {
  try {
    run();
  } catch (error) {
    parentPort.postMessage({ type: "error", action, message: String((error && error.message) || error) });
  }
};
parentPort.on("message", (message) => {
  if (message === "checkpoint") {
    report("checkpoint", () => {
      let [result] = db.pragma("wal_checkpoint(PASSIVE)");
      // A long log the copy just caught up with is started over here, rather than by the backstop
      // in a commit on the event loop. RESTART holds the writer lock (the daemon's commits wait)
      // while it copies the few frames committed meanwhile and syncs them, and while it waits for
      // readers, which it does for 20 ms at most; busy, it is left to the next round.
      if (result.log >= workerData.restartPages && result.busy === 0) {
        db.pragma("busy_timeout = 20");
        [result] = db.pragma("wal_checkpoint(RESTART)");
        db.pragma("busy_timeout = 1000");
        result.restarted = result.busy === 0;
      }
      parentPort.postMessage({ type: "checkpoint", ...result });
    });
  } else if (message === "sync") {
    report("sync", () => {
      // The WAL file the daemon's connection keeps open; it is never deleted while that is open.
      wal ??= openSync(workerData.file + "-wal", "r");
      fdatasyncSync(wal);
      parentPort.postMessage({ type: "sync" });
    });
  } else if (message === "stop") {
    if (wal !== null) closeSync(wal);
    db.close();
    parentPort.close();
  }
});
`;

export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
  /** The worker started the log over (the next commit writes it from its start). */
  restarted?: boolean;
}

type WorkerMessage =
  | ({ type: "checkpoint" } & CheckpointResult)
  | { type: "sync" }
  | { type: "error"; action: "checkpoint" | "sync"; message: string };

export class Checkpointer {
  readonly #worker: Worker;
  readonly #exited: Promise<void>;
  readonly #timing: CheckpointTiming;
  readonly #now: () => number;
  #scheduled: NodeJS.Timeout | null = null;
  /** A checkpoint was asked of the worker and has not answered yet. */
  #checkpointing = false;
  /** Something was written while it ran: tell the worker again once it answers. */
  #writtenMeanwhile = false;
  #checkpointDueAt = 0;
  #listeners = new Set<(result: CheckpointResult) => void>();
  #syncListeners = new Set<() => void>();

  constructor(
    db: Db,
    options: {
      timing?: Partial<CheckpointTiming>;
      now?: () => number;
      onError?: (message: string) => void;
      restartPages?: number;
    } = {},
  ) {
    this.#timing = { ...CHECKPOINT_TIMING, ...options.timing };
    this.#now = options.now ?? Date.now;
    db.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    db.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
    this.#worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        file: db.name,
        sqlite: createRequire(import.meta.url).resolve("better-sqlite3"),
        restartPages: options.restartPages ?? RESTART_PAGES,
      },
    });
    // The worker is a detail of the store: it must not keep a stopping daemon alive.
    this.#worker.unref();
    this.#exited = new Promise((resolve) => this.#worker.once("exit", () => resolve()));
    this.#worker.on("message", (message: WorkerMessage) => {
      if (message.type === "error") {
        options.onError?.(`${message.action}: ${message.message}`);
        if (message.action === "checkpoint") this.#checkpointDone();
      } else if (message.type === "sync") {
        for (const listener of this.#syncListeners) listener();
      } else {
        this.#checkpointed(message);
      }
    });
    this.#worker.on("error", (error) => options.onError?.(error.message));
  }

  /** Something was committed: a checkpoint or a WAL sync follows within `syncMs` (one for any number of writes). */
  noteWrite(): void {
    if (this.#scheduled !== null) return;
    this.#scheduled = setTimeout(() => {
      this.#scheduled = null;
      if (this.#checkpointing) this.#writtenMeanwhile = true;
      else if (this.#now() >= this.#checkpointDueAt) this.#askCheckpoint();
      else this.#worker.postMessage("sync");
    }, this.#timing.syncMs);
    this.#scheduled.unref();
  }

  /** Something was written since the worker last synced or checkpointed, and it will be told. */
  get scheduled(): boolean {
    return this.#scheduled !== null;
  }

  /** Resolves with what the next checkpoint did. */
  nextCheckpoint(): Promise<CheckpointResult> {
    return new Promise((resolve) => {
      const once = (result: CheckpointResult) => {
        this.#listeners.delete(once);
        resolve(result);
      };
      this.#listeners.add(once);
    });
  }

  /** Resolves when the worker next synced the WAL without checkpointing. */
  nextSync(): Promise<void> {
    return new Promise((resolve) => {
      const once = () => {
        this.#syncListeners.delete(once);
        resolve();
      };
      this.#syncListeners.add(once);
    });
  }

  /** Runs one checkpoint now and resolves with what it did. */
  checkpointNow(): Promise<CheckpointResult> {
    const next = this.nextCheckpoint();
    this.#askCheckpoint();
    return next;
  }

  /** Closes the worker's connection and waits for the thread to end. */
  async stop(): Promise<void> {
    if (this.#scheduled !== null) clearTimeout(this.#scheduled);
    // Referenced again while it stops: an unreferenced worker would let the process end first.
    this.#worker.ref();
    this.#worker.postMessage("stop");
    await this.#exited;
  }

  #askCheckpoint(): void {
    this.#checkpointing = true;
    this.#worker.postMessage("checkpoint");
  }

  #checkpointed(result: CheckpointResult): void {
    // Under a stream of writes the log grows by thousands of pages a second: checkpointing every
    // `syncMs` then keeps each copy, and the writer lock a restart takes, short.
    const wait = result.log >= BUSY_PAGES ? this.#timing.syncMs : this.#timing.everyMs;
    this.#checkpointDueAt = this.#now() + wait;
    for (const listener of this.#listeners) listener(result);
    this.#checkpointDone();
  }

  #checkpointDone(): void {
    this.#checkpointing = false;
    if (this.#writtenMeanwhile) {
      this.#writtenMeanwhile = false;
      this.noteWrite();
    }
  }
}
