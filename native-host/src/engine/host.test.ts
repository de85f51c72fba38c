import { afterEach, expect, test, vi } from "vitest";
import type { Engine } from "../store/engine.js";
import type { MonitorRecord } from "../store/monitors.js";
import { DatabaseClock, HostStateWatch, hostState, hostViews, panelHosts, waitingForHost } from "./host.js";

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

test("a monitor waits for its host while that host is offline or stopped; a host-free or ended one never does", () => {
  const now = 100_000;
  const base = { version: "0.1.0", pid: 1, startedAt: 0 };
  const rows = [
    { ...base, id: "h_a", name: "alpha", heartbeatAt: now - 1000, stoppedAt: null },
    { ...base, id: "h_b", name: "beta", heartbeatAt: now - 20_000, stoppedAt: null },
    { ...base, id: "h_c", name: "gamma", heartbeatAt: now - 5000, stoppedAt: now - 5000 },
  ];
  const hosts = new Map(rows.map((row) => [row.id, row]));
  const monitor = (hostId: string | null, endingReason: MonitorRecord["endingReason"] = null) =>
    ({ endingReason, trigger: { hostId } }) as MonitorRecord;
  expect(waitingForHost(monitor("h_a"), hosts, now)).toBeNull();
  expect(waitingForHost(monitor("h_b"), hosts, now)).toEqual({
    host: "beta",
    state: "offline",
    since: new Date(now - 20_000).toISOString(),
  });
  expect(waitingForHost(monitor("h_c"), hosts, now)).toEqual({
    host: "gamma",
    state: "stopped",
    since: new Date(now - 5000).toISOString(),
  });
  expect(waitingForHost(monitor(null), hosts, now)).toBeNull();
  expect(waitingForHost(monitor("h_b", "met"), hosts, now)).toBeNull();
  expect(waitingForHost(monitor("h_gone"), hosts, now)).toBeNull();

  expect(panelHosts(rows, "h_a", now)).toEqual([
    { id: "h_a", name: "alpha", state: "online", since: null, self: true },
    { id: "h_b", name: "beta", state: "offline", since: new Date(now - 20_000).toISOString(), self: false },
    { id: "h_c", name: "gamma", state: "stopped", since: new Date(now - 5000).toISOString(), self: false },
  ]);
});

test("the host watch tells when a host goes offline, stops or comes back, not at every heartbeat", async () => {
  let now = 100_000;
  const base = { id: "h_b", name: "beta", version: "0.1.0", pid: 1, startedAt: 0, stoppedAt: null as number | null };
  let beta = { ...base, heartbeatAt: now };
  let reads = 0;
  const store = {
    tables: {
      hosts: {
        brief: async () => {
          reads++;
          return [beta];
        },
        census: async (at: number) =>
          `1:${hostState(beta, at) === "online" ? 1 : 0}:${beta.startedAt}:${beta.stoppedAt}`,
      },
    },
  } as unknown as Engine;
  let told = 0;
  const watch = new HostStateWatch(
    store,
    () => now,
    () => told++,
  );
  await watch.check();
  now += 5000;
  beta = { ...beta, heartbeatAt: now };
  await watch.check();
  expect(told).toBe(0); // online, still online
  now += 15_000;
  await watch.check();
  expect(told).toBe(1); // no heartbeat for 15 s: offline
  await watch.check();
  expect(told).toBe(1);
  beta = { ...beta, heartbeatAt: now, stoppedAt: now };
  await watch.check();
  expect(told).toBe(2); // stopped
  beta = { ...base, heartbeatAt: now };
  await watch.check();
  expect(told).toBe(3); // back
  // Heartbeats that change nothing: the census (one row) only, the list not read again …
  const listed = reads;
  for (let i = 0; i < 5; i++) {
    now += 5000;
    beta = { ...beta, heartbeatAt: now };
    await watch.check();
  }
  expect(reads).toBe(listed);
  // … until the fallback cadence comes round.
  now += 60_000;
  beta = { ...beta, heartbeatAt: now };
  await watch.check();
  expect(reads).toBe(listed + 1);
  expect(told).toBe(3);
});
