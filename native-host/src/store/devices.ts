/**
 * Devices (other machines reached over SSH) and the names of the signal files collected from each.
 * Design: docs/design.md §5.
 */
import type { Db } from "./db.js";

/**
 * How long the name of a file confirmed removed from its device is remembered. A name whose file
 * may still be there (the removal never confirmed) is kept for as long as the device exists.
 */
export const DEVICE_COLLECTED_RETENTION_MS = 7 * 24 * 3_600_000;

export type DeviceState = "connected" | "offline" | "error";

export interface DeviceRow {
  /** Made when the device is added (dev_ + 16 hex); a device added again under the same name gets a new one. */
  id: string;
  name: string;
  user: string | null;
  host: string;
  port: number | null;
  identity: string | null;
  state: DeviceState;
  lastError: string | null;
  lastCollectedAt: number | null;
  filesCollected: number;
  createdAt: number;
  /** The host that added it and collects it (team mode); null before hosts existed. */
  hostId: string | null;
}

export interface RawDevice {
  id: string;
  name: string;
  user: string | null;
  host: string;
  port: number | null;
  identity: string | null;
  state: DeviceState;
  last_error: string | null;
  last_collected_at: number | null;
  files_collected: number;
  created_at: number;
  host_id: string | null;
}

export const toDevice = (raw: RawDevice): DeviceRow => ({
  id: raw.id,
  name: raw.name,
  user: raw.user,
  host: raw.host,
  port: raw.port,
  identity: raw.identity,
  state: raw.state,
  lastError: raw.last_error,
  lastCollectedAt: raw.last_collected_at,
  filesCollected: raw.files_collected,
  createdAt: raw.created_at,
  hostId: raw.host_id,
});

export type NewDevice = Pick<DeviceRow, "id" | "name" | "user" | "host" | "port" | "identity" | "createdAt"> & {
  hostId?: string | null;
};

export class DevicesTable {
  readonly #insert;
  readonly #byName;
  readonly #all;
  readonly #delete;
  readonly #setState;
  readonly #collectedAt;
  readonly #isCollected;
  readonly #markCollected;
  readonly #countCollected;
  readonly #markRemoved;
  readonly #prune;
  readonly #armedWaitpoints;
  readonly #orphanedWaitpoints;

  constructor(db: Db) {
    this.#insert = db.prepare(
      `INSERT INTO devices (id, name, user, host, port, identity, created_at, host_id)
       VALUES (@id, @name, @user, @host, @port, @identity, @createdAt, @hostId)`,
    );
    this.#byName = db.prepare<[string], RawDevice>("SELECT * FROM devices WHERE name = ?");
    this.#all = db.prepare<[], RawDevice>("SELECT * FROM devices ORDER BY name");
    this.#delete = db.prepare<[string]>("DELETE FROM devices WHERE name = ?");
    this.#setState = db.prepare<[DeviceState, string | null, string]>(
      "UPDATE devices SET state = ?, last_error = ? WHERE id = ?",
    );
    this.#collectedAt = db.prepare<[number, string]>("UPDATE devices SET last_collected_at = ? WHERE id = ?");
    this.#isCollected = db.prepare<[string, string], { one: number }>(
      "SELECT 1 AS one FROM device_collected WHERE device = ? AND name = ?",
    );
    this.#markCollected = db.prepare<[string, string, number]>(
      "INSERT OR IGNORE INTO device_collected (device, name, collected_at) VALUES (?, ?, ?)",
    );
    this.#countCollected = db.prepare<[string]>(
      "UPDATE devices SET files_collected = files_collected + 1 WHERE name = ?",
    );
    this.#markRemoved = db.prepare<[number, string, string]>(
      "UPDATE device_collected SET removed_at = ? WHERE device = ? AND name = ?",
    );
    this.#prune = db.prepare<[number]>("DELETE FROM device_collected WHERE removed_at IS NOT NULL AND removed_at < ?");
    this.#armedWaitpoints = db.prepare<[string], { uid: number }>(
      `SELECT w.monitor_uid AS uid FROM waitpoints w JOIN monitors m ON m.uid = w.monitor_uid
       WHERE w.device_id = ? AND m.ending_at IS NULL`,
    );
    this.#orphanedWaitpoints = db.prepare<[], { uid: number }>(
      `SELECT w.monitor_uid AS uid FROM waitpoints w JOIN monitors m ON m.uid = w.monitor_uid
       WHERE w.device IS NOT NULL AND m.ending_at IS NULL
         AND (w.device_id IS NULL OR NOT EXISTS (SELECT 1 FROM devices d WHERE d.id = w.device_id))`,
    );
  }

  insert(row: NewDevice): void {
    this.#insert.run({ ...row, hostId: row.hostId ?? null });
  }

  byName(name: string): DeviceRow | undefined {
    const raw = this.#byName.get(name);
    return raw && toDevice(raw);
  }

  all(): DeviceRow[] {
    return this.#all.all().map(toDevice);
  }

  /** Removes the device and its collected names; false when there was none. */
  delete(name: string): boolean {
    return this.#delete.run(name).changes > 0;
  }

  /** By id: a collector of a device since removed (and perhaps added again) changes nothing. */
  setState(id: string, state: DeviceState, lastError: string | null): void {
    this.#setState.run(state, lastError, id);
  }

  setCollectedAt(id: string, at: number): void {
    this.#collectedAt.run(at, id);
  }

  /** The monitor uids of the armed waitpoints created for the device with this id. */
  armedWaitpoints(id: string): number[] {
    return this.#armedWaitpoints.all(id).map((row) => row.uid);
  }

  /** Armed device waitpoints whose device is gone (removed before its waitpoints were bound to its id). */
  orphanedWaitpoints(): number[] {
    return this.#orphanedWaitpoints.all().map((row) => row.uid);
  }

  isCollected(device: string, file: string): boolean {
    return this.#isCollected.get(device, file) !== undefined;
  }

  /** Remembers a file as taken (call in the transaction that stored its signal); counts it once. */
  markCollected(device: string, file: string, at: number): void {
    if (this.#markCollected.run(device, file, at).changes > 0) this.#countCollected.run(device);
  }

  /** The device confirmed these collected files are gone from its spool (names not collected: no-op). */
  markRemoved(device: string, files: string[], at: number): void {
    for (const file of files) this.#markRemoved.run(at, device, file);
  }

  /** Forgets names confirmed removed more than the retention window before `now`; returns how many. */
  pruneCollected(now: number): number {
    return this.#prune.run(now - DEVICE_COLLECTED_RETENTION_MS).changes;
  }
}
