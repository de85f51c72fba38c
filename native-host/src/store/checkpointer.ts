/**
 * WAL checkpoints off the daemon's event loop.
 *
 * In WAL mode SQLite copies the log back into the database file every 1,000 pages, and it does so
 * inside whichever commit crossed the line: that commit (and every request queued behind it on
 * the one event loop) waits for the copy and its fsync. Here a worker thread holding its own
 * connection runs a PASSIVE checkpoint instead — it never blocks a writer — at most once a second
 * and only after something was written (an idle daemon wakes it never), and the daemon's
 * connection keeps an automatic checkpoint only as a backstop, at 10,000 pages, for a load the
 * worker cannot keep up with. The WAL file is truncated back to 64 MB at most after it
 * has been reset. Durability is unchanged: what was committed is in the WAL either way.
 * Design: docs/design.md §9.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { Db } from "./db.js";

export const BACKSTOP_PAGES = 10_000;
const JOURNAL_SIZE_LIMIT = 64 * 1024 * 1024;

// CommonJS run with `eval`, so it needs no file of its own beside the compiled code (and runs the
// same under vitest, which executes the TypeScript sources).
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.sqlite);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma("busy_timeout = 1000");
const checkpoint = () => {
  try {
    const [result] = db.pragma("wal_checkpoint(PASSIVE)");
    parentPort.postMessage({ type: "checkpoint", ...result });
  } catch (error) {
    parentPort.postMessage({ type: "error", message: String((error && error.message) || error) });
  }
};
parentPort.on("message", (message) => {
  if (message === "now") checkpoint();
  if (message === "stop") {
    db.close();
    parentPort.close();
  }
});
`;

export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

export class Checkpointer {
  readonly #worker: Worker;
  readonly #exited: Promise<void>;
  readonly #everyMs: number;
  #scheduled: NodeJS.Timeout | null = null;
  #listeners = new Set<(result: CheckpointResult) => void>();

  constructor(db: Db, options: { everyMs?: number; onError?: (message: string) => void } = {}) {
    this.#everyMs = options.everyMs ?? 1000;
    db.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    db.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
    this.#worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        file: db.name,
        sqlite: createRequire(import.meta.url).resolve("better-sqlite3"),
      },
    });
    // The worker is a detail of the store: it must not keep a stopping daemon alive.
    this.#worker.unref();
    this.#exited = new Promise((resolve) => this.#worker.once("exit", () => resolve()));
    this.#worker.on("message", (message: { type: string; message?: string } & CheckpointResult) => {
      if (message.type === "error") options.onError?.(message.message ?? "unknown error");
      else for (const listener of this.#listeners) listener(message);
    });
    this.#worker.on("error", (error) => options.onError?.(error.message));
  }

  /** Something was committed: a checkpoint follows within `everyMs` (one for any number of writes). */
  noteWrite(): void {
    if (this.#scheduled !== null) return;
    this.#scheduled = setTimeout(() => {
      this.#scheduled = null;
      this.#worker.postMessage("now");
    }, this.#everyMs);
    this.#scheduled.unref();
  }

  /** A checkpoint is due (something was written since the last one). */
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

  /** Runs one checkpoint now and resolves with what it did. */
  checkpointNow(): Promise<CheckpointResult> {
    const next = this.nextCheckpoint();
    this.#worker.postMessage("now");
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
}
