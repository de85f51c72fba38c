import { afterEach, expect, test, vi } from "vitest";
import type { Engine } from "../store/engine.js";
import { DatabaseClock, hostViews } from "./host.js";

afterEach(() => {
  vi.useRealTimers();
});

/** A store whose database clock reads `ahead` ms past this machine's, taking `roundTripMs` to answer. */
function storeWithClock(clock: { ahead: number; roundTripMs: number }): Engine {
  return {
    tables: {
      hosts: {
        clock: async () => {
          const asked = Date.now();
          vi.setSystemTime(asked + clock.roundTripMs);
          return asked + clock.roundTripMs / 2 + clock.ahead;
        },
      },
    },
  } as unknown as Engine;
}

test("the database's clock: read with half the round trip allowed for; small moves and slow reads ignored", async () => {
  vi.useFakeTimers({ now: 1_000_000 });
  const database = { ahead: 5000, roundTripMs: 40 };
  const clock = new DatabaseClock(storeWithClock(database));
  expect(clock.now()).toBe(Date.now());
  await clock.sync();
  expect(clock.offsetMs).toBe(5000);
  expect(clock.now()).toBe(Date.now() + 5000);
  database.ahead = 5008; // noise: time does not step by a few ms
  await clock.sync();
  expect(clock.offsetMs).toBe(5000);
  database.ahead = -2000; // the machine's clock was set forward by 7 s
  await clock.sync();
  expect(clock.offsetMs).toBe(-2000);
  database.ahead = 60_000;
  database.roundTripMs = 1500; // too slow to say what time it is
  await clock.sync();
  expect(clock.offsetMs).toBe(-2000);
});

test("hosts as the API shows them: online while the heartbeat is recent, offline after 15 s, stopped after a clean stop", () => {
  const base = { version: "0.1.0", pid: 1, startedAt: 0, sessions: 2, bound: 1 };
  const now = 100_000;
  const views = hostViews(
    [
      { ...base, id: "h_a", name: "alpha", heartbeatAt: now - 14_999, stoppedAt: null },
      { ...base, id: "h_b", name: "beta", heartbeatAt: now - 15_000, stoppedAt: null },
      { ...base, id: "h_c", name: "gamma", heartbeatAt: now - 1000, stoppedAt: now - 1000 },
    ],
    "h_b",
    now,
  );
  expect(views.map((v) => [v.name, v.state, v.self])).toEqual([
    ["alpha", "online", false],
    ["beta", "offline", true],
    ["gamma", "stopped", false],
  ]);
  expect(views[2]).toMatchObject({ stoppedAt: new Date(now - 1000).toISOString(), sessions: 2, bound: 1 });
});
