/**
 * Devices and the names of the signal files collected from each, on PostgreSQL (team mode, #27):
 * the SQL of store/devices.ts with `$n` placeholders ("user" quoted: a reserved word here; INSERT
 * OR IGNORE → ON CONFLICT DO NOTHING). Rows mapped by the SQLite module's `toDevice`.
 * Design: docs/design.md §9 (team mode; the plan: docs/team-mode-plan.md).
 */

import {
  DEVICE_COLLECTED_RETENTION_MS,
  type DeviceRow,
  type DeviceState,
  type NewDevice,
  type RawDevice,
  toDevice,
} from "../devices.js";
import type { DevicesStore } from "../engine.js";
import { all, one, type Queryable, run, statement } from "./statement.js";

const INSERT = statement(
  "devices_insert",
  `INSERT INTO devices (id, name, "user", host, port, identity, created_at, host_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
);
const BY_NAME = statement("devices_by_name", "SELECT * FROM devices WHERE name = $1");
const ALL = statement("devices_all", "SELECT * FROM devices ORDER BY name");
const DELETE = statement("devices_delete", "DELETE FROM devices WHERE name = $1");
const SET_STATE = statement("devices_set_state", "UPDATE devices SET state = $1, last_error = $2 WHERE id = $3");
const COLLECTED_AT = statement("devices_collected_at", "UPDATE devices SET last_collected_at = $1 WHERE id = $2");
const IS_COLLECTED = statement(
  "devices_is_collected",
  "SELECT 1 AS one FROM device_collected WHERE device = $1 AND name = $2",
);
const MARK_COLLECTED = statement(
  "devices_mark_collected",
  "INSERT INTO device_collected (device, name, collected_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
);
const COUNT_COLLECTED = statement(
  "devices_count_collected",
  "UPDATE devices SET files_collected = files_collected + 1 WHERE name = $1",
);
const MARK_REMOVED = statement(
  "devices_mark_removed",
  "UPDATE device_collected SET removed_at = $1 WHERE device = $2 AND name = $3",
);
const PRUNE = statement(
  "devices_prune",
  "DELETE FROM device_collected WHERE removed_at IS NOT NULL AND removed_at < $1",
);
const ARMED_WAITPOINTS = statement(
  "devices_armed_waitpoints",
  `SELECT w.monitor_uid AS uid FROM waitpoints w JOIN monitors m ON m.uid = w.monitor_uid
   WHERE w.device_id = $1 AND m.ending_at IS NULL`,
);
const ORPHANED_WAITPOINTS = statement(
  "devices_orphaned_waitpoints",
  `SELECT w.monitor_uid AS uid FROM waitpoints w JOIN monitors m ON m.uid = w.monitor_uid
   WHERE w.device IS NOT NULL AND m.ending_at IS NULL
     AND (w.device_id IS NULL OR NOT EXISTS (SELECT 1 FROM devices d WHERE d.id = w.device_id))`,
);

export class PgDevices implements DevicesStore {
  constructor(private readonly db: Queryable) {}

  async insert(row: NewDevice): Promise<void> {
    await run(this.db, INSERT, [
      row.id,
      row.name,
      row.user,
      row.host,
      row.port,
      row.identity,
      row.createdAt,
      row.hostId ?? null,
    ]);
  }

  async byName(name: string): Promise<DeviceRow | undefined> {
    const raw = await one<RawDevice>(this.db, BY_NAME, [name]);
    return raw && toDevice(raw);
  }

  async all(): Promise<DeviceRow[]> {
    return (await all<RawDevice>(this.db, ALL)).map(toDevice);
  }

  async delete(name: string): Promise<boolean> {
    return (await run(this.db, DELETE, [name])) > 0;
  }

  async setState(id: string, state: DeviceState, lastError: string | null): Promise<void> {
    await run(this.db, SET_STATE, [state, lastError, id]);
  }

  async setCollectedAt(id: string, at: number): Promise<void> {
    await run(this.db, COLLECTED_AT, [at, id]);
  }

  async armedWaitpoints(id: string): Promise<number[]> {
    return (await all<{ uid: number }>(this.db, ARMED_WAITPOINTS, [id])).map((row) => row.uid);
  }

  async orphanedWaitpoints(): Promise<number[]> {
    return (await all<{ uid: number }>(this.db, ORPHANED_WAITPOINTS)).map((row) => row.uid);
  }

  async isCollected(device: string, file: string): Promise<boolean> {
    return (await one(this.db, IS_COLLECTED, [device, file])) !== undefined;
  }

  async markCollected(device: string, file: string, at: number): Promise<void> {
    if ((await run(this.db, MARK_COLLECTED, [device, file, at])) > 0) await run(this.db, COUNT_COLLECTED, [device]);
  }

  async markRemoved(device: string, files: string[], at: number): Promise<void> {
    for (const file of files) await run(this.db, MARK_REMOVED, [at, device, file]);
  }

  async pruneCollected(now: number): Promise<number> {
    return run(this.db, PRUNE, [now - DEVICE_COLLECTED_RETENTION_MS]);
  }
}
