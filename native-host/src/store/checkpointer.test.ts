import { copyFileSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, expect, test } from "vitest";
import { BACKSTOP_PAGES, BUSY_PAGES, Checkpointer } from "./checkpointer.js";
import { Store } from "./store.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function openStore() {
  const dir = mkdtempSync(join(tmpdir(), "vigil-ckpt-"));
  dirs.push(dir);
  const file = join(dir, "vigil.db");
  return { store: Store.open(file), file };
}

test("the worker copies the WAL into the database while the daemon's connection only keeps a backstop", async () => {
  const { store, file } = openStore();
  const checkpointer = new Checkpointer(store.db, { timing: { syncMs: 60_000 } });
  try {
    expect(store.db.pragma("wal_autocheckpoint", { simple: true })).toBe(BACKSTOP_PAGES);
    // Enough commits that the default 1,000-page checkpoint would have run inside one of them.
    for (let i = 0; i < 1500; i++) {
      store.tx(() =>
        store.sessions.insert({
          id: `s-${i}`,
          label: "x".repeat(2000),
          root: null,
          adapter: { kind: "inbox" },
          createdAt: i,
        }),
      );
    }
    const walBefore = statSync(`${file}-wal`).size;
    expect(walBefore).toBeGreaterThan(1000 * 4096);
    const result = await checkpointer.checkpointNow();
    expect(result.busy).toBe(0);
    expect(result.log).toBeGreaterThan(1000);
    expect(result.checkpointed).toBe(result.log);
    // The database file alone (copied without its WAL) now holds every row.
    copyFileSync(file, `${file}.copy`);
    const copy = new Database(`${file}.copy`, { readonly: true });
    expect(copy.prepare("SELECT count(*) AS n FROM sessions").get()).toEqual({ n: 1500 });
    copy.close();
  } finally {
    await checkpointer.stop();
    store.close();
  }
});

test("stop closes the worker's connection and ends its thread", async () => {
  const { store } = openStore();
  const checkpointer = new Checkpointer(store.db, { timing: { syncMs: 10 } });
  await checkpointer.checkpointNow();
  await checkpointer.stop(); // resolves only once the thread has exited
  store.tx(() =>
    store.sessions.insert({ id: "after", label: null, root: null, adapter: { kind: "inbox" }, createdAt: 0 }),
  );
  expect(store.sessions.get("after")?.id).toBe("after");
  store.close();
});

test("commits schedule one checkpoint a little later; a store that writes nothing schedules none", async () => {
  const { store } = openStore();
  const checkpointer = new Checkpointer(store.db, { timing: { syncMs: 20 } });
  store.afterCommit = () => checkpointer.noteWrite();
  try {
    expect(checkpointer.scheduled).toBe(false);
    const first = checkpointer.nextCheckpoint();
    let checkpoints = 0;
    void first.then(() => checkpoints++);
    for (let i = 0; i < 50; i++) {
      store.tx(() =>
        store.sessions.insert({ id: `w-${i}`, label: null, root: null, adapter: { kind: "inbox" }, createdAt: i }),
      );
    }
    expect(checkpointer.scheduled).toBe(true);
    const result = await first;
    expect(result.log).toBeGreaterThan(0);
    expect(result.checkpointed).toBe(result.log);
    expect(checkpoints).toBe(1); // fifty commits, one checkpoint
    expect(checkpointer.scheduled).toBe(false); // and nothing more until the next write
    store.tx(() => store.sessions.setLabel("w-1", "again"));
    expect(checkpointer.scheduled).toBe(true);
  } finally {
    await checkpointer.stop();
    store.close();
  }
});

const insertSessions = (store: Store, from: number, count: number, label = "x".repeat(2000)) => {
  for (let i = from; i < from + count; i++) {
    store.tx(() =>
      store.sessions.insert({ id: `b-${i}`, label, root: null, adapter: { kind: "inbox" }, createdAt: i }),
    );
  }
};

test("between checkpoints a write only has the worker sync the WAL; the next checkpoint waits its turn", async () => {
  const { store } = openStore();
  let now = 1_000_000;
  const checkpointer = new Checkpointer(store.db, { timing: { syncMs: 5, everyMs: 60_000 }, now: () => now });
  store.afterCommit = () => checkpointer.noteWrite();
  let checkpoints = 0;
  const count = () => {
    void checkpointer.nextCheckpoint().then(() => {
      checkpoints++;
      count();
    });
  };
  count();
  try {
    now += 1000;
    const first = checkpointer.nextCheckpoint();
    insertSessions(store, 0, 3);
    await first; // the first write after start: a checkpoint is due at once
    expect(checkpoints).toBe(1);
    now += 59_999;
    const synced = checkpointer.nextSync();
    insertSessions(store, 3, 3);
    await synced;
    expect(checkpoints).toBe(1);
    now += 1;
    const second = checkpointer.nextCheckpoint();
    insertSessions(store, 6, 3);
    await second;
    expect(checkpoints).toBe(2);
  } finally {
    await checkpointer.stop();
    store.close();
  }
});

/** Frames in the log now (after a PASSIVE checkpoint of this connection's own, which copies them). */
const framesInLog = (store: Store) => (store.db.pragma("wal_checkpoint(PASSIVE)") as Array<{ log: number }>)[0]?.log;

test("the worker starts a long log over once it has copied it, so no commit of the daemon's does", async () => {
  const { store } = openStore();
  const checkpointer = new Checkpointer(store.db, { timing: { syncMs: 60_000 }, restartPages: 200 });
  try {
    insertSessions(store, 0, 400);
    const result = await checkpointer.checkpointNow();
    expect(result.log).toBeGreaterThanOrEqual(200);
    expect(result.restarted).toBe(true);
    // The next commit writes the log from its start: a few frames, not the hundreds before it.
    insertSessions(store, 400, 1);
    expect(framesInLog(store)).toBeLessThan(10);
    expect(store.db.prepare("SELECT count(*) AS n FROM sessions").get()).toEqual({ n: 401 });

    // Below the line the worker leaves the log to SQLite (which starts it over at the next commit
    // when nothing was written during the copy).
    insertSessions(store, 401, 20);
    expect((await checkpointer.checkpointNow()).restarted).toBeUndefined();
  } finally {
    await checkpointer.stop();
    store.close();
  }
});

test("while the log grows fast, checkpoints come every syncMs rather than every everyMs", async () => {
  const { store } = openStore();
  let now = 1_000_000;
  const checkpointer = new Checkpointer(store.db, { timing: { syncMs: 5, everyMs: 60_000 }, now: () => now });
  store.afterCommit = () => checkpointer.noteWrite();
  try {
    const first = checkpointer.nextCheckpoint();
    insertSessions(store, 0, Math.ceil(BUSY_PAGES * 1.5));
    expect((await first).log).toBeGreaterThanOrEqual(BUSY_PAGES);
    // Far less than everyMs later, the next write brings a checkpoint, not only a sync.
    now += 5;
    const second = checkpointer.nextCheckpoint();
    insertSessions(store, 5000, 1);
    await second;
    // And once a checkpoint found little, the next write is back to a sync.
    now += 5;
    const synced = checkpointer.nextSync();
    insertSessions(store, 5001, 1);
    await synced;
  } finally {
    await checkpointer.stop();
    store.close();
  }
});
