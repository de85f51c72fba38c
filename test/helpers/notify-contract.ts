/**
 * The notify tables' contract (issue #40), run on both engines: SQLite in
 * native-host/src/store/notify-contract.test.ts, PostgreSQL in test/postgres/notify-contract.test.ts.
 * What the notifier relies on: an entry is queued once per channel whatever inserts it (two hosts
 * at once included), one claim at a time and none within the rate, and each attempt recorded.
 */
import { beforeEach, expect, test } from "vitest";
import type { Engine } from "../../native-host/src/store/engine.js";
import type { NewChannel } from "../../native-host/src/store/notify.js";

export interface NotifyHarness {
  /** An empty, migrated store. */
  fresh(): Promise<Engine>;
}

const channel = (name: string, over: Partial<NewChannel> = {}): NewChannel => ({
  name,
  kind: "ntfy",
  config: { url: "${secret:NOTIFY_PHONE_URL}", tokenSecret: "NTFY_TOKEN" },
  sessions: ["s1"],
  causes: ["delivery_failed"],
  hostId: "h_a",
  createdAt: 100,
  ...over,
});

export function notifyContract(harness: NotifyHarness): void {
  let store: Engine;
  beforeEach(async () => {
    store = await harness.fresh();
  });

  test("a channel is added once by name, read back whole, paused and removed with its queue", async () => {
    const { notify } = store.tables;
    expect(await notify.add(channel("phone"))).toBe(true);
    expect(await notify.add(channel("phone", { kind: "slack" }))).toBe(false);
    expect(await notify.get("phone")).toEqual({
      ...channel("phone"),
      paused: false,
      lastSentAt: null,
      lastError: null,
      lastErrorAt: null,
    });
    expect(await notify.setPaused("phone", true)).toBe(true);
    expect((await notify.list()).map((c) => [c.name, c.paused])).toEqual([["phone", true]]);
    expect(await notify.setPaused("nope", true)).toBe(false);
    await notify.enqueue("phone", "k1", { reason: "delivery_failed" }, 100, 200);
    expect(await notify.remove("phone")).toBe(true);
    expect(await notify.pending()).toEqual([]);
    expect(await notify.remove("phone")).toBe(false);
  });

  test("an entry is queued once per channel: a second insert, a concurrent one or one after sending is a no-op", async () => {
    const { notify } = store.tables;
    await notify.add(channel("phone"));
    await notify.add(channel("mail", { kind: "email" }));
    const results = await Promise.all(
      Array.from({ length: 8 }, () => store.tx((t) => t.notify.enqueue("phone", "k1", { n: 1 }, 100, 200))),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await notify.enqueue("mail", "k1", { n: 1 }, 100, 200)).toBe(true);
    expect((await notify.pending()).map((row) => [row.channel, row.key, row.item])).toEqual([
      ["mail", "k1", { n: 1 }],
      ["phone", "k1", { n: 1 }],
    ]);
    await notify.attempted("phone", ["k1"], { sent: true }, 300);
    expect(await notify.enqueue("phone", "k1", { n: 2 }, 400, 500)).toBe(false);
    expect((await notify.pendingCounts()).get("phone")).toBeUndefined();
    expect((await notify.get("phone"))?.lastSentAt).toBe(300);
  });

  test("one claim at a time; none while paused or within the rate; an attempt releases it", async () => {
    const { notify } = store.tables;
    await notify.add(channel("phone"));
    const claims = await Promise.all(
      Array.from({ length: 6 }, () => store.tx((t) => t.notify.claim("phone", 1000, 31_000, 1000))),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    await notify.attempted("phone", [], { sent: true }, 1000);
    // Sent at 1000: a claim that needs the last message at or before 500 is refused.
    expect(await notify.claim("phone", 2000, 32_000, 500)).toBe(false);
    expect(await notify.claim("phone", 2000, 32_000, 1000)).toBe(true);
    await notify.release("phone");
    await notify.setPaused("phone", true);
    expect(await notify.claim("phone", 3000, 33_000, 3000)).toBe(false);
    await notify.setPaused("phone", false);
    // An expired claim (a host that died while sending) is taken again.
    expect(await notify.claim("phone", 3000, 4000, 3000)).toBe(true);
    expect(await notify.claim("phone", 5000, 35_000, 5000)).toBe(true);
  });

  test("a failed attempt is kept with its error and next try; given up, or cleared, it is no longer pending", async () => {
    const { notify } = store.tables;
    await notify.add(channel("phone"));
    for (const key of ["k1", "k2", "k3"]) await notify.enqueue("phone", key, {}, 100, 100);
    await notify.attempted("phone", ["k1", "k2"], { sent: false, error: "answered 500", retryAt: 5000 }, 200);
    expect((await notify.due("phone", 4999)).map((row) => row.key)).toEqual(["k3"]);
    expect((await notify.due("phone", 5000)).map((row) => [row.key, row.attempts])).toEqual([
      ["k1", 1],
      ["k2", 1],
      ["k3", 0],
    ]);
    expect(await notify.get("phone")).toMatchObject({ lastError: "answered 500", lastErrorAt: 200 });
    await notify.attempted("phone", ["k1"], { sent: false, error: "answered 400", retryAt: null }, 300);
    await notify.clear("phone", "k2");
    expect((await notify.pending()).map((row) => row.key)).toEqual(["k3"]);
    await notify.attempted("phone", ["k3"], { sent: true }, 400);
    expect(await notify.get("phone")).toMatchObject({ lastError: null, lastErrorAt: null, lastSentAt: 400 });
  });

  test("the purge forgets old rows that are done, never a pending one", async () => {
    const { notify } = store.tables;
    await notify.add(channel("phone"));
    for (const key of ["sent", "pending", "recent"])
      await notify.enqueue("phone", key, {}, key === "recent" ? 900 : 100, 100);
    await notify.attempted("phone", ["sent", "recent"], { sent: true }, 1000);
    expect(await notify.purge(500)).toBe(1);
    expect(await notify.enqueue("phone", "sent", {}, 2000, 2000)).toBe(true);
    expect(await notify.enqueue("phone", "recent", {}, 2000, 2000)).toBe(false);
    expect((await notify.pending()).map((row) => row.key).sort()).toEqual(["pending", "sent"]);
  });
}
