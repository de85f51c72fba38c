/** Waitpoints in-process on a real SQLite database, with fake time for the hourly cap. */
import { expect, test, vi } from "vitest";
import { useFakeTimeEngine } from "../../../test/helpers/engine.js";
import { RESOLVED_KEPT_MS } from "./waitpoints.js";

const t = useFakeTimeEngine();

test("past 12 wakes in an hour, reports are recorded and folded into one late wake when the hour has room", () => {
  const w = t.waitpoints.create("s", { label: "nightly", intent: "watch the loss", max_signals: 50 });
  const send = (message: string) => t.waitpoints.signal({ id: w.id, secret: w.secret, status: "ok", message }, "http");
  for (let i = 1; i <= 12; i++) {
    expect(send(`report ${i}`).verdict).toBe("accepted");
    vi.advanceTimersByTime(60_000);
  }
  expect(t.engine.queries.wakes("s")).toHaveLength(12);
  send("report 13");
  vi.advanceTimersByTime(60_000);
  send("report 14");
  const held = t.waitpoints.view(t.engine.queries.monitor("s", w.id));
  expect(held).toMatchObject({ wakesThisHour: 12, maxWakesPerHour: 12, heldUntil: "2026-12-01T13:00:00.000Z" });
  expect(t.engine.queries.wakes("s")).toHaveLength(12);

  vi.advanceTimersByTime(Date.parse("2026-12-01T13:00:00Z") - Date.now() - 1);
  expect(t.engine.queries.wakes("s")).toHaveLength(12);
  vi.advanceTimersByTime(1);
  const all = t.engine.queries.wakes("s");
  expect(all).toHaveLength(13);
  expect(all[12]?.payload.events.map((e) => e.text)).toEqual(["ok: report 13", "ok: report 14"]);
  expect(t.waitpoints.view(t.engine.queries.monitor("s", w.id)).heldUntil).toBeNull();
});

test("a resolved waitpoint answers 'already resolved' for 3 days, then its id is unknown", () => {
  const w = t.waitpoints.create("s", { label: "build", intent: "ship it" });
  expect(t.waitpoints.signal({ id: w.id, secret: w.secret, status: "ok" }, "http").verdict).toBe("accepted");
  // The wake must be delivered before the waitpoint may be forgotten.
  t.store.db.prepare("UPDATE wakes SET state = 'delivered'").run();
  vi.advanceTimersByTime(3 * 24 * 3_600_000 - 1);
  expect(t.waitpoints.purge(Date.now())).toBe(0);
  expect(t.waitpoints.signal({ id: w.id, secret: w.secret, status: "ok" }, "http").verdict).toBe("ended");
  vi.advanceTimersByTime(1);
  expect(t.waitpoints.purge(Date.now())).toBe(1);
  expect(t.waitpoints.signal({ id: w.id, secret: w.secret, status: "ok" }, "http").verdict).toBe("unknown");
});

test("deleting the session cancels its waitpoints: a late signal hears 'removed' (not a miss); a wrong secret is still a miss", () => {
  const w = t.waitpoints.create("s", { label: "build", intent: "ship it" });
  t.engine.deleteSession("s");
  const late = t.waitpoints.signal({ id: w.id, secret: w.secret, status: "ok" }, "http");
  expect(late).toMatchObject({ verdict: "ended", body: { state: "removed" } });
  expect(late.miss).toBeUndefined();
  const guess = t.waitpoints.signal({ id: w.id, secret: "0".repeat(48), status: "ok" }, "http");
  expect(guess).toMatchObject({ verdict: "unknown", miss: true });
  // Forgotten with the resolved ones, three days on.
  vi.advanceTimersByTime(RESOLVED_KEPT_MS + 1000);
  t.waitpoints.purge(Date.now());
  expect(t.waitpoints.signal({ id: w.id, secret: w.secret, status: "ok" }, "http").verdict).toBe("unknown");
});

test("only a signal that may move a due time pokes the scheduler: not a plain progress report", () => {
  const poke = vi.spyOn(t.engine, "poke");
  const mailbox = t.waitpoints.create("s", { label: "mailbox", intent: "reports", max_signals: 10 });
  const watched = t.waitpoints.create("s", { label: "job", intent: "stall check", heartbeat_timeout_seconds: 60 });
  poke.mockClear();
  const progress = t.waitpoints.signal({ id: mailbox.id, secret: mailbox.secret, status: "progress" }, "http");
  expect(progress).toMatchObject({ verdict: "accepted", settled: false });
  expect(poke).not.toHaveBeenCalled();
  // A heartbeat moves the stall check; an ok may wake.
  t.waitpoints.signal({ id: watched.id, secret: watched.secret, status: "progress" }, "http");
  expect(poke).toHaveBeenCalledTimes(1);
  t.waitpoints.signal({ id: mailbox.id, secret: mailbox.secret, status: "ok" }, "http");
  expect(poke).toHaveBeenCalledTimes(2);
  expect(t.engine.queries.wakes("s")).toHaveLength(1);
});
