/** The engine in-process, on a real SQLite database, with fake time for deadlines. */
import { expect, test, vi } from "vitest";
import { useFakeTimeEngine } from "../../../test/helpers/engine.js";

const t = useFakeTimeEngine();

test("pause does not extend the deadline; passing it ends the wait with timeout and one wake", () => {
  t.engine.createMonitor("s", {
    source: { kind: "command", command: "exit 1" },
    intervalSeconds: 30,
    timeoutSeconds: 60,
  });
  const paused = t.engine.control("s", "mon-1", "pause");
  expect(paused.deadlineAt).toBe("2026-12-01T12:01:00.000Z");
  expect(t.engine.nextTimerAt).toBe(Date.parse("2026-12-01T12:01:00Z"));

  vi.advanceTimersByTime(59_999);
  expect(t.engine.queries.view(t.engine.queries.monitor("s", "mon-1")).state).toBe("paused");
  vi.advanceTimersByTime(1);

  const ended = t.engine.queries.view(t.engine.queries.monitor("s", "mon-1"));
  expect(ended.state).toBe("ready");
  expect(ended.ending).toEqual({ reason: "timeout", at: "2026-12-01T12:01:00.000Z", detail: "deadline of 60s passed" });
  const wakes = t.engine.queries.wakes("s");
  expect(wakes).toHaveLength(1);
  expect(wakes[0]?.text).toContain(
    "Ended (timeout): its deadline passed before the condition was met (a failure), after 1m 0s",
  );
  expect(t.engine.nextTimerAt).toBeNull();
});

test("one timer serves every monitor: it is set for the earliest deadline", () => {
  for (const timeoutSeconds of [600, 120, 300]) {
    t.engine.createMonitor("s", {
      source: { kind: "command", command: "exit 1" },
      intervalSeconds: 30,
      timeoutSeconds,
    });
  }
  for (const id of ["mon-1", "mon-2", "mon-3"]) t.engine.control("s", id, "pause");
  expect(vi.getTimerCount()).toBe(1);
  expect(t.engine.nextTimerAt).toBe(Date.parse("2026-12-01T12:02:00Z"));
  vi.advanceTimersByTime(120_000);
  expect(t.engine.queries.monitors("s").map((m) => m.state)).toEqual(["paused", "ready", "paused"]);
  expect(t.engine.nextTimerAt).toBe(Date.parse("2026-12-01T12:05:00Z"));
});

test("deleting a session removes its monitors and wakes, so nothing old can resume it", () => {
  t.engine.createMonitor("s", {
    source: { kind: "command", command: "exit 1" },
    intervalSeconds: 30,
    timeoutSeconds: 60,
  });
  t.engine.control("s", "mon-1", "pause");
  t.engine.deleteSession("s");
  expect(() => t.engine.queries.monitors("s")).toThrow("Unknown session s");
  expect(t.engine.nextTimerAt).toBeNull();
  expect(t.store.db.prepare("SELECT count(*) AS n FROM triggers").get()).toEqual({ n: 0 });
});

/** What a kill -9 leaves of a running check: its lease. */
const leaseAsIfRunning = (uid: number) =>
  t.store.db.prepare("UPDATE triggers SET lease_until = ? WHERE monitor_uid = ?").run(Date.now() + 60_000, uid);

test("a check caught in flight by three unclean stops in a row ends its monitor instead of resuming it", () => {
  t.engine.createMonitor("s", { source: { kind: "command", command: "exit 1" }, intervalSeconds: 30 });
  const uid = t.engine.queries.monitor("s", "mon-1").uid;
  for (const restart of [1, 2]) {
    leaseAsIfRunning(uid);
    t.engine.start();
    const record = t.engine.queries.monitor("s", "mon-1");
    expect(record.state).toBe("waiting");
    expect(record.trigger?.leaseUntil).toBeNull();
    expect(record.trigger?.conditionState).toEqual({ "#interrupted": String(restart) });
  }
  leaseAsIfRunning(uid);
  t.engine.start();
  const ended = t.engine.queries.view(t.engine.queries.monitor("s", "mon-1"));
  expect(ended.ending).toEqual({
    reason: "error",
    at: "2026-12-01T12:00:00.000Z",
    detail:
      "its check was in flight when the daemon stopped uncleanly 3 times in a row (killed, crashed or hung during it), so it was not resumed",
  });
  expect(t.engine.queries.wakes("s")).toHaveLength(1);
});

test("a recorded check ends the run of interrupted ones; a clean stop releases the leases uncounted", () => {
  t.engine.createMonitor("s", { source: { kind: "command", command: "exit 1" }, intervalSeconds: 30 });
  const uid = t.engine.queries.monitor("s", "mon-1").uid;
  for (const _ of [1, 2]) {
    leaseAsIfRunning(uid);
    t.engine.start();
  }
  const before = t.engine.queries.monitor("s", "mon-1").trigger?.conditionState ?? {};
  t.store.monitors.recordCheck(uid, {
    at: Date.now(),
    nextDueAt: Date.now(),
    unrunnableStreak: 0,
    conditionState: before,
  });
  expect(t.engine.queries.monitor("s", "mon-1").trigger?.conditionState).toEqual({});

  leaseAsIfRunning(uid);
  t.engine.stop();
  expect(t.engine.queries.monitor("s", "mon-1").trigger?.leaseUntil).toBeNull();
  for (const _ of [1, 2, 3]) t.engine.start();
  expect(t.engine.queries.monitor("s", "mon-1").state).toBe("waiting");
});

test("a monitor armed before RE2 with a pattern RE2 cannot run ends at start, saying why", () => {
  t.engine.createMonitor("s", {
    source: { kind: "command", command: "echo x", condition: { path: "output", operator: "regex", value: "x" } },
    intervalSeconds: 30,
  });
  t.store.db.prepare("UPDATE monitors SET source = json_set(source, '$.condition.value', '(?=x)x')").run();
  t.engine.start();
  const ended = t.engine.queries.view(t.engine.queries.monitor("s", "mon-1"));
  expect(ended.ending?.reason).toBe("error");
  expect(ended.ending?.detail).toContain(
    'its condition can no longer be evaluated: Expected a regex in RE2 syntax (matched in linear time: no backreferences, lookahead or lookbehind), got "(?=x)x": lookahead and lookbehind are not supported',
  );
});
