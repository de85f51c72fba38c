/**
 * `Store.tx` waits for another connection's write lock by retrying its BEGIN itself (design.md §9,
 * WAL checkpoints): what it must keep is SQLite's meaning — the body runs once, in a transaction,
 * with the usual busy timeout for its own statements, and an error from the body is never retried.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { afterEach, expect, test } from "vitest";
import { BUSY_TIMEOUT_MS } from "./db.js";
import { Store } from "./store.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function openStore() {
  const dir = mkdtempSync(join(tmpdir(), "vigil-busy-"));
  dirs.push(dir);
  const file = join(dir, "vigil.db");
  return { store: Store.open(file), file };
}

const session = (id: string) => ({ id, label: null, root: null, adapter: { kind: "inbox" as const }, createdAt: 0 });

/** Another connection, in a thread of its own, holds the write lock for `ms` and then commits a row. */
function holdWriteLock(file: string, ms: number): Promise<Worker> {
  const worker = new Worker(
    `const { parentPort, workerData } = require("node:worker_threads");
     const Database = require(workerData.sqlite);
     const db = new Database(workerData.file);
     db.prepare("BEGIN IMMEDIATE").run();
     db.prepare("INSERT INTO sessions (id, adapter, created_at) VALUES ('other', '{\\"kind\\":\\"inbox\\"}', 0)").run();
     parentPort.postMessage("locked");
     Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.ms);
     db.prepare("COMMIT").run();
     db.close();`,
    { eval: true, workerData: { file, ms, sqlite: createRequire(import.meta.url).resolve("better-sqlite3") } },
  );
  return new Promise((resolve) => worker.once("message", () => resolve(worker)));
}

test("a transaction waits out another connection's write lock, runs its body once, and sees that connection's row", async () => {
  const { store, file } = openStore();
  try {
    const worker = await holdWriteLock(file, 50);
    let runs = 0;
    let timeoutInside = 0;
    store.tx(() => {
      runs++;
      timeoutInside = store.db.pragma("busy_timeout", { simple: true }) as number;
      store.sessions.insert(session("mine"));
    });
    await new Promise((resolve) => worker.once("exit", resolve));
    expect(runs).toBe(1);
    expect(timeoutInside).toBe(BUSY_TIMEOUT_MS);
    expect(store.db.pragma("busy_timeout", { simple: true })).toBe(BUSY_TIMEOUT_MS);
    expect(store.sessions.get("other")?.id).toBe("other"); // began after the other's commit
    expect(store.sessions.get("mine")?.id).toBe("mine");
  } finally {
    store.close();
  }
});

test("an error from the body, even SQLITE_BUSY, is thrown once and rolls back; the store stays usable", () => {
  const { store } = openStore();
  try {
    let runs = 0;
    const busy = Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
    expect(() =>
      store.tx(() => {
        runs++;
        store.sessions.insert(session("rolled-back"));
        throw busy;
      }),
    ).toThrow(busy);
    expect(runs).toBe(1);
    expect(store.sessions.get("rolled-back")).toBeUndefined();
    expect(store.db.pragma("busy_timeout", { simple: true })).toBe(BUSY_TIMEOUT_MS);
    store.tx(() => store.sessions.insert(session("after")));
    expect(store.sessions.get("after")?.id).toBe("after");
  } finally {
    store.close();
  }
});
