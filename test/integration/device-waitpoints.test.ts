/**
 * Waitpoints bound to a device's id (#25 finding 11), in-process on a real SQLite database: the
 * registry's remove ends them, and a device added again under the same name is another device.
 */
import Database from "better-sqlite3";
import { afterEach, beforeEach, expect, test } from "vitest";
import { silentLogger } from "../../native-host/src/base/log.js";
import { wireServices } from "../../native-host/src/daemon.js";
import { loadMigrations, migrate } from "../../native-host/src/store/db.js";
import { SqliteEngine } from "../../native-host/src/store/engine.js";
import { Store } from "../../native-host/src/store/store.js";

let store: SqliteEngine;
let services: Awaited<ReturnType<typeof wireServices>>;

beforeEach(async () => {
  store = new SqliteEngine(Store.open(":memory:"), { checkScope: true });
  services = await wireServices({ store, log: silentLogger });
  await services.delivery.stop();
  await services.engine.start();
  await services.engine.createSession({ id: "s" });
});

afterEach(async () => {
  await services.engine.stop();
  await store.close();
});

const deviceOf = async (name: string) => {
  const row = await store.tables.devices.byName(name);
  if (!row) throw new Error(`Expected device ${name}`);
  return { id: row.id, name };
};
const arm = (device?: string) =>
  services.waitpoints.create("s", { label: "job", intent: "resume", ...(device ? { device } : {}) });
const fromDevice = (w: { id: string; secret: string }, device: { id: string; name: string }) =>
  services.waitpoints.signal({ id: w.id, secret: w.secret, status: "ok" }, "device", { device });
const view = (id: string) => services.engine.queries.monitor("s", id);

test("vigil devices rm ends the device's armed waitpoints (lost, one wake naming it); others stay armed", async () => {
  await services.devices.add({ name: "box", ssh: "me@box.lab" });
  await services.devices.add({ name: "other", ssh: "me@other.lab" });
  const onBox = await arm("box");
  const onOther = await arm("other");
  const local = await arm();
  await services.devices.remove("box");
  expect(await view(onBox.id)).toMatchObject({
    state: "ready",
    endingReason: "lost",
    endingDetail: expect.stringContaining("its device box was removed (vigil devices rm)"),
  });
  expect((await services.waitpoints.view(await view(onBox.id))).state).toBe("orphaned");
  const wakes = await services.engine.queries.wakes("s");
  expect(wakes).toHaveLength(1);
  expect(wakes[0]?.text).toContain("its device was removed");
  expect((await view(onOther.id)).state).toBe("waiting");
  expect((await view(local.id)).state).toBe("waiting");
});

test("a device added again under the same name is another device: its files cannot signal the old one's waitpoints", async () => {
  await services.devices.add({ name: "box", ssh: "me@box.lab" });
  const old = await arm("box");
  const first = await deviceOf("box");
  // Removed without ending its waitpoints (as before this fix), then added again.
  await store.tables.devices.delete("box");
  await services.devices.add({ name: "box", ssh: "someone-else@elsewhere" });
  const again = await deviceOf("box");
  expect(again.id).not.toBe(first.id);
  const outcome = await fromDevice(old, again);
  expect(outcome).toMatchObject({
    verdict: "wrong_device",
    body: {
      error: `Waitpoint ${old.id} was created for an earlier device named box, since removed, not for device box`,
    },
  });
  expect((await view(old.id)).state).toBe("waiting");
  // The daemon's start ends such orphans; the new device's own waitpoints are left alone.
  const fresh = await arm("box");
  await services.devices.endOrphanedWaitpoints();
  expect((await view(old.id)).endingReason).toBe("lost");
  expect((await view(fresh.id)).state).toBe("waiting");
  expect((await fromDevice(fresh, again)).verdict).toBe("accepted");
});

test("migration 0013 binds a device's waitpoints to its id, except those armed before that device was added", () => {
  const db = new Database(":memory:");
  migrate(
    db,
    loadMigrations().filter((m) => m.version <= 12),
  );
  db.exec(`
    INSERT INTO sessions (id, created_at) VALUES ('s', 0);
    INSERT INTO devices (name, host, created_at) VALUES ('box', 'box.lab', 500);
    INSERT INTO monitors (session_id, id, name, kind, source, timeout_ms, created_at) VALUES
      ('s', 'wp_000000000001', 'n', 'signal', '{}', 1, 100),
      ('s', 'wp_000000000002', 'n', 'signal', '{}', 1, 600),
      ('s', 'wp_000000000003', 'n', 'signal', '{}', 1, 600);
    INSERT INTO waitpoints (monitor_uid, id, secret_hash, quorum, fail_fast, max_signals, device) VALUES
      (1, 'wp_000000000001', 'h', 1, 1, 1, 'box'),
      (2, 'wp_000000000002', 'h', 1, 1, 1, 'box'),
      (3, 'wp_000000000003', 'h', 1, 1, 1, NULL);
  `);
  migrate(db);
  const [device] = db.prepare("SELECT id FROM devices").all() as Array<{ id: string }>;
  expect(device?.id).toMatch(/^dev_[0-9a-f]{16}$/);
  expect(db.prepare("SELECT id, device_id FROM waitpoints ORDER BY id").all()).toEqual([
    { id: "wp_000000000001", device_id: null },
    { id: "wp_000000000002", device_id: device?.id },
    { id: "wp_000000000003", device_id: null },
  ]);
});
