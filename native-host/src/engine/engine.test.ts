/** The engine in-process, on a real SQLite database, with fake time for deadlines. */
import { expect, test, vi } from "vitest";
import { useFakeTimeEngine } from "../../../test/helpers/engine.js";

const t = useFakeTimeEngine();
const monitor = (id: string) => t.engine.queries.monitor("s", id);
const view = async (id: string) => t.engine.queries.view(await monitor(id));

test("pause does not extend the deadline; passing it ends the wait with timeout and one wake", async () => {
  await t.engine.createMonitor("s", {
    source: { kind: "command", command: "exit 1" },
    intervalSeconds: 30,
    timeoutSeconds: 60,
  });
  const paused = await t.engine.control("s", "mon-1", "pause");
  expect(paused.deadlineAt).toBe("2026-12-01T12:01:00.000Z");
  await vi.advanceTimersByTimeAsync(0);
  expect(t.engine.nextTimerAt).toBe(Date.parse("2026-12-01T12:01:00Z"));

  await vi.advanceTimersByTimeAsync(59_999);
  expect((await view("mon-1")).state).toBe("paused");
  await vi.advanceTimersByTimeAsync(1);

  const ended = await view("mon-1");
  expect(ended.state).toBe("ready");
  expect(ended.ending).toEqual({ reason: "timeout", at: "2026-12-01T12:01:00.000Z", detail: "deadline of 60s passed" });
  const wakes = await t.engine.queries.wakes("s");
  expect(wakes).toHaveLength(1);
  expect(wakes[0]?.text).toContain(
    "Ended (timeout): its deadline passed before the condition was met (a failure), after 1m 0s",
  );
  expect(t.engine.nextTimerAt).toBeNull();
});

test("one timer serves every monitor: it is set for the earliest deadline", async () => {
  for (const timeoutSeconds of [600, 120, 300]) {
    await t.engine.createMonitor("s", {
      source: { kind: "command", command: "exit 1" },
      intervalSeconds: 30,
      timeoutSeconds,
    });
  }
  for (const id of ["mon-1", "mon-2", "mon-3"]) await t.engine.control("s", id, "pause");
  await vi.advanceTimersByTimeAsync(0);
  expect(vi.getTimerCount()).toBe(1);
  expect(t.engine.nextTimerAt).toBe(Date.parse("2026-12-01T12:02:00Z"));
  await vi.advanceTimersByTimeAsync(120_000);
  expect((await t.engine.queries.monitors("s")).map((m) => m.state)).toEqual(["paused", "ready", "paused"]);
  expect(t.engine.nextTimerAt).toBe(Date.parse("2026-12-01T12:05:00Z"));
});

test("deleting a session removes its monitors and wakes, so nothing old can resume it", async () => {
  await t.engine.createMonitor("s", {
    source: { kind: "command", command: "exit 1" },
    intervalSeconds: 30,
    timeoutSeconds: 60,
  });
  await t.engine.control("s", "mon-1", "pause");
  await t.engine.deleteSession("s");
  await expect(t.engine.queries.monitors("s")).rejects.toThrow("Unknown session s");
  await vi.advanceTimersByTimeAsync(0);
  expect(t.engine.nextTimerAt).toBeNull();
  expect(t.store.store.db.prepare("SELECT count(*) AS n FROM triggers").get()).toEqual({ n: 0 });
});

/** What a kill -9 leaves of a running check: its lease. */
const leaseAsIfRunning = (uid: number) =>
  t.store.store.db.prepare("UPDATE triggers SET lease_until = ? WHERE monitor_uid = ?").run(Date.now() + 60_000, uid);

test("a check caught in flight by three unclean stops in a row ends its monitor instead of resuming it", async () => {
  await t.engine.createMonitor("s", { source: { kind: "command", command: "exit 1" }, intervalSeconds: 30 });
  const uid = (await monitor("mon-1")).uid;
  for (const restart of [1, 2]) {
    leaseAsIfRunning(uid);
    await t.engine.start();
    const record = await monitor("mon-1");
    expect(record.state).toBe("waiting");
    expect(record.trigger?.leaseUntil).toBeNull();
    expect(record.trigger?.conditionState).toEqual({ "#interrupted": String(restart) });
  }
  leaseAsIfRunning(uid);
  await t.engine.start();
  const ended = await view("mon-1");
  expect(ended.ending).toEqual({
    reason: "error",
    at: "2026-12-01T12:00:00.000Z",
    detail:
      "its check was in flight when the daemon stopped uncleanly 3 times in a row (killed, crashed or hung during it), so it was not resumed",
  });
  expect(await t.engine.queries.wakes("s")).toHaveLength(1);
});

test("a recorded check ends the run of interrupted ones; a clean stop releases the leases uncounted", async () => {
  await t.engine.createMonitor("s", { source: { kind: "command", command: "exit 1" }, intervalSeconds: 30 });
  const uid = (await monitor("mon-1")).uid;
  for (const _ of [1, 2]) {
    leaseAsIfRunning(uid);
    await t.engine.start();
  }
  const before = (await monitor("mon-1")).trigger?.conditionState ?? {};
  await t.store.tables.monitors.recordCheck(uid, {
    at: Date.now(),
    nextDueAt: Date.now(),
    unrunnableStreak: 0,
    conditionState: before,
  });
  expect((await monitor("mon-1")).trigger?.conditionState).toEqual({});

  leaseAsIfRunning(uid);
  await t.engine.stop();
  expect((await monitor("mon-1")).trigger?.leaseUntil).toBeNull();
  for (const _ of [1, 2, 3]) await t.engine.start();
  expect((await monitor("mon-1")).state).toBe("waiting");
});

test("a monitor armed before RE2 with a pattern RE2 cannot run ends at start, saying why", async () => {
  await t.engine.createMonitor("s", {
    source: { kind: "command", command: "echo x", condition: { path: "output", operator: "regex", value: "x" } },
    intervalSeconds: 30,
  });
  t.store.store.db.prepare("UPDATE monitors SET source = json_set(source, '$.condition.value', '(?=x)x')").run();
  await t.engine.start();
  const ended = await view("mon-1");
  expect(ended.ending?.reason).toBe("error");
  expect(ended.ending?.detail).toContain(
    'its condition can no longer be evaluated: Expected a regex in RE2 syntax (matched in linear time: no backreferences, lookahead or lookbehind), got "(?=x)x": lookahead and lookbehind are not supported',
  );
});
