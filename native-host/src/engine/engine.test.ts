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
