import { afterEach, expect, test } from "vitest";
import { EVENT_LOG_CAP, EVENT_PRUNE_STEP } from "./events.js";
import { Store } from "./store.js";

let store: Store;
afterEach(() => store?.close());

function withMonitor(): { store: Store; uid: number } {
  store = Store.open(":memory:");
  store.sessions.insert({ id: "s", label: null, root: null, adapter: { kind: "inbox" }, createdAt: 0 });
  const uid = store.monitors.insert({
    sessionId: "s",
    id: "wp_000000000001",
    name: "log",
    kind: "signal",
    source: { kind: "signal", members: null, quorum: 1, failFast: true, maxSignals: 1 },
    continuation: "c",
    intervalMs: null,
    timeoutMs: 60_000,
    createdAt: 0,
    mode: "signal",
    nextDueAt: null,
    deadlineAt: 60_000,
  });
  return { store, uid };
}

const stored = (uid: number) =>
  (store.db.prepare("SELECT count(*) AS n FROM events WHERE monitor_uid = ?").get(uid) as { n: number }).n;

test("the log reads the last 200 entries, oldest first, while the oldest are pruned in steps", () => {
  const { store, uid } = withMonitor();
  let most = 0;
  for (let i = 1; i <= 1000; i++) {
    expect(store.events.append(uid, `line ${i}`, i)).toBe(i);
    most = Math.max(most, stored(uid));
  }
  const recent = store.events.recent(uid);
  expect(recent).toHaveLength(EVENT_LOG_CAP);
  expect(recent[0]?.text).toBe("line 801");
  expect(recent.at(-1)?.text).toBe("line 1000");
  // Never more than one step's worth beyond the cap, and pruned back to the cap at each step.
  expect(most).toBe(EVENT_LOG_CAP + EVENT_PRUNE_STEP - 1);
  expect(stored(uid)).toBe(EVENT_LOG_CAP + (1000 % EVENT_PRUNE_STEP));
  expect(store.events.since(uid, 990, 20).map((e) => e.text)).toEqual(
    Array.from({ length: 10 }, (_, i) => `line ${991 + i}`),
  );
});
