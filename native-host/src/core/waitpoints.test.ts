/** Waitpoints in-process on a real SQLite database, with fake time for the hourly cap. */
import { expect, test, vi } from "vitest";
import { useFakeTimeEngine } from "../../../test/helpers/engine.js";
import { RESOLVED_KEPT_MS } from "./waitpoints.js";

const t = useFakeTimeEngine();
const wakes = () => t.engine.queries.wakes("s");
const view = async (id: string) => t.waitpoints.view(await t.engine.queries.monitor("s", id));

test("past 12 wakes in an hour, reports are recorded and folded into one late wake when the hour has room", async () => {
  const w = await t.waitpoints.create("s", { label: "nightly", intent: "watch the loss", max_signals: 50 });
  const send = (message: string) => t.waitpoints.signal({ id: w.id, secret: w.secret, status: "ok", message }, "http");
  for (let i = 1; i <= 12; i++) {
    expect((await send(`report ${i}`)).verdict).toBe("accepted");
    await vi.advanceTimersByTimeAsync(60_000);
  }
  expect(await wakes()).toHaveLength(12);
  await send("report 13");
  await vi.advanceTimersByTimeAsync(60_000);
  await send("report 14");
  const held = await view(w.id);
  expect(held).toMatchObject({ wakesThisHour: 12, maxWakesPerHour: 12, heldUntil: "2026-12-01T13:00:00.000Z" });
  expect(await wakes()).toHaveLength(12);

  await vi.advanceTimersByTimeAsync(Date.parse("2026-12-01T13:00:00Z") - Date.now() - 1);
  expect(await wakes()).toHaveLength(12);
  await vi.advanceTimersByTimeAsync(1);
  const all = await wakes();
  expect(all).toHaveLength(13);
  expect(all[12]?.payload.events.map((e) => e.text)).toEqual(["ok: report 13", "ok: report 14"]);
  expect((await view(w.id)).heldUntil).toBeNull();
});

test("a resolved waitpoint answers 'already resolved' for 3 days, then its id is unknown", async () => {
  const w = await t.waitpoints.create("s", { label: "build", intent: "ship it" });
  const send = async () => (await t.waitpoints.signal({ id: w.id, secret: w.secret, status: "ok" }, "http")).verdict;
  expect(await send()).toBe("accepted");
  // The wake must be delivered before the waitpoint may be forgotten.
  t.store.store.db.prepare("UPDATE wakes SET state = 'delivered'").run();
  await vi.advanceTimersByTimeAsync(3 * 24 * 3_600_000 - 1);
  expect(await t.waitpoints.purge(Date.now())).toBe(0);
  expect(await send()).toBe("ended");
  await vi.advanceTimersByTimeAsync(1);
  expect(await t.waitpoints.purge(Date.now())).toBe(1);
  expect(await send()).toBe("unknown");
});

test("deleting the session cancels its waitpoints: a late signal hears 'removed' (not a miss); a wrong secret is still a miss", async () => {
  const w = await t.waitpoints.create("s", { label: "build", intent: "ship it" });
  await t.engine.deleteSession("s");
  const late = await t.waitpoints.signal({ id: w.id, secret: w.secret, status: "ok" }, "http");
  expect(late).toMatchObject({ verdict: "ended", body: { state: "removed" } });
  expect(late.miss).toBeUndefined();
  const guess = await t.waitpoints.signal({ id: w.id, secret: "0".repeat(48), status: "ok" }, "http");
  expect(guess).toMatchObject({ verdict: "unknown", miss: true });
  // Forgotten with the resolved ones, three days on.
  await vi.advanceTimersByTimeAsync(RESOLVED_KEPT_MS + 1000);
  await t.waitpoints.purge(Date.now());
  expect((await t.waitpoints.signal({ id: w.id, secret: w.secret, status: "ok" }, "http")).verdict).toBe("unknown");
});

test("only a signal that may move a due time pokes the scheduler: not a plain progress report", async () => {
  const poke = vi.spyOn(t.engine, "poke");
  const mailbox = await t.waitpoints.create("s", { label: "mailbox", intent: "reports", max_signals: 10 });
  const watched = await t.waitpoints.create("s", {
    label: "job",
    intent: "stall check",
    heartbeat_timeout_seconds: 60,
  });
  poke.mockClear();
  const progress = await t.waitpoints.signal({ id: mailbox.id, secret: mailbox.secret, status: "progress" }, "http");
  expect(progress).toMatchObject({ verdict: "accepted", settled: false });
  expect(poke).not.toHaveBeenCalled();
  // A heartbeat moves the stall check; an ok may wake.
  await t.waitpoints.signal({ id: watched.id, secret: watched.secret, status: "progress" }, "http");
  expect(poke).toHaveBeenCalledTimes(1);
  await t.waitpoints.signal({ id: mailbox.id, secret: mailbox.secret, status: "ok" }, "http");
  expect(poke).toHaveBeenCalledTimes(2);
  expect(await wakes()).toHaveLength(1);
});

test("a batch that fails and is committed again signal by signal counts each signal once against the budget", async () => {
  const w = await t.waitpoints.create("s", { label: "mailbox", intent: "reports", max_signals: 100 });
  // The first commit runs every signal of the burst, then fails (as a constraint would) and rolls back.
  const tx = t.store.tx.bind(t.store);
  vi.spyOn(t.store, "tx").mockImplementationOnce((body) =>
    tx(async (tables) => {
      await body(tables);
      throw new Error("the batch's commit failed");
    }),
  );
  // A whole burst (30 by default): the rolled-back batch must not have spent it.
  const outcomes = await Promise.all(
    Array.from({ length: 30 }, (_, i) =>
      t.waitpoints.signalBatched({ id: w.id, secret: w.secret, status: "progress", key: `k${i}` }),
    ),
  );
  expect(t.store.tx).toHaveBeenCalledTimes(31);
  expect(outcomes.map((o) => o.verdict)).toEqual(Array(30).fill("accepted"));
  expect((await t.waitpoints.signalBatched({ id: w.id, secret: w.secret, status: "progress" })).verdict).toBe(
    "too_many_signals",
  );
});
