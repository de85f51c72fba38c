import { afterEach, expect, test } from "vitest";
import { DEVICE_COLLECTED_RETENTION_MS } from "./devices.js";
import { Store } from "./store.js";

const DAY = 24 * 3_600_000;
const T0 = Date.UTC(2026, 0, 1);
let store: Store;

function withDevice(): Store {
  store = Store.open(":memory:");
  store.devices.insert({
    id: "dev_0123456789abcdef",
    name: "gpu1",
    user: null,
    host: "gpu1.lab",
    port: null,
    identity: null,
    createdAt: T0,
  });
  store.tx(() => {
    for (const name of ["old.json", "recent.json", "unconfirmed.json"]) store.devices.markCollected("gpu1", name, T0);
  });
  return store;
}

afterEach(() => store?.close());

test("the retention window is 7 days", () => {
  expect(DEVICE_COLLECTED_RETENTION_MS).toBe(7 * DAY);
});

test("a name confirmed removed is forgotten once the window has passed; one never confirmed is kept", () => {
  const { devices } = withDevice();
  devices.markRemoved("gpu1", ["old.json"], T0 + DAY);
  devices.markRemoved("gpu1", ["recent.json"], T0 + 6 * DAY);

  expect(devices.pruneCollected(T0 + 8 * DAY)).toBe(0); // old.json was removed exactly 7 days ago
  expect(devices.pruneCollected(T0 + 8 * DAY + 1)).toBe(1);
  expect(devices.isCollected("gpu1", "old.json")).toBe(false);
  expect(devices.isCollected("gpu1", "recent.json")).toBe(true);
  expect(devices.isCollected("gpu1", "unconfirmed.json")).toBe(true);

  expect(devices.pruneCollected(T0 + 365 * DAY)).toBe(1);
  expect(devices.isCollected("gpu1", "recent.json")).toBe(false);
  expect(devices.isCollected("gpu1", "unconfirmed.json")).toBe(true); // its file may still be there
  expect(devices.byName("gpu1")?.filesCollected).toBe(3); // forgetting names does not uncount them
});

test("confirming the removal of a name never collected remembers nothing", () => {
  const { devices } = withDevice();
  devices.markRemoved("gpu1", ["never.json"], T0);
  expect(devices.isCollected("gpu1", "never.json")).toBe(false);
  expect(devices.pruneCollected(T0 + 365 * DAY)).toBe(0);
});

test("removing a device forgets its names", () => {
  const { devices } = withDevice();
  expect(devices.delete("gpu1")).toBe(true);
  expect(devices.isCollected("gpu1", "unconfirmed.json")).toBe(false);
});
