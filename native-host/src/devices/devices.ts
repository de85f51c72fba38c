/**
 * The devices registry (design.md §5): add, list and remove the machines whose spool Vigil collects
 * over SSH, each with its own collector (collector.ts) while the daemon runs; hourly, the names of
 * collected files confirmed removed more than DEVICE_COLLECTED_RETENTION_MS ago are forgotten.
 * Each device gets an id when it is added, and its waitpoints are bound to that id: removing a
 * device ends its armed waitpoints (`lost`, core/device-waitpoints.ts), and a device added again
 * under the same name is another device.
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import type { DeviceAdd } from "../../../shared/schemas/inputs.js";
import type { DeviceView } from "../../../shared/schemas/views.js";
import { ConflictError, NotFoundError, ValidationError } from "../base/errors.js";
import { iso } from "../base/iso.js";
import { inBackground } from "../base/log.js";
import type { Changes } from "../core/changes.js";
import { endDeviceWaitpointsInTx } from "../core/device-waitpoints.js";
import type { EndingDeps } from "../core/endings.js";
import type { DeviceRow } from "../store/devices.js";
import type { Tables } from "../store/engine.js";
import { type Collection, Collector, type CollectorDeps } from "./collector.js";

export interface DevicesDeps extends CollectorDeps {
  /** Ending a removed device's waitpoints: the one ending path, the sessions told, the scheduler poked. */
  endings: EndingDeps;
  changes: Changes;
  poke: () => void;
  /** This daemon's host (team mode): it collects the devices it added, and those added before hosts. */
  hostId: string;
}

const PRUNE_EVERY_MS = 3_600_000;

export const deviceView = (d: DeviceRow, collection: Collection | null = null): DeviceView => ({
  name: d.name,
  ssh: d.user ? `${d.user}@${d.host}` : d.host,
  port: d.port,
  identity: d.identity,
  state: d.state,
  lastError: d.lastError,
  lastCollectionAt: iso(d.lastCollectedAt),
  filesCollected: d.filesCollected,
  collection,
  createdAt: iso(d.createdAt),
});

export class Devices {
  readonly #collectors = new Map<string, Collector>();
  #running = false;
  #prune: NodeJS.Timeout | null = null;
  /** start, add and remove run one at a time: each opens or closes collectors by what it read. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: DevicesDeps) {}

  /**
   * Opens a connection to every device (the daemon calls this once it serves; each connects in the
   * background) and ends the waitpoints of devices removed before they were bound to a device id.
   */
  start(): Promise<void> {
    this.#running = true;
    return this.#oneAtATime(() => this.#start());
  }

  async #start(): Promise<void> {
    const { store, log } = this.deps;
    await this.endOrphanedWaitpoints();
    for (const device of await store.tables.devices.all()) {
      if (device.hostId !== null && device.hostId !== this.deps.hostId) continue; // another host collects it
      await store.tables.devices.setState(device.id, "offline", device.lastError);
      if (this.#running) this.#open(device); // else stopped meanwhile
    }
    await this.prune();
    if (!this.#running) return;
    this.#prune = setInterval(() => inBackground(log, "forgetting collected file names", this.prune()), PRUNE_EVERY_MS);
    this.#prune.unref();
  }

  /** Ends armed waitpoints whose device is gone (removed before waitpoints were bound to a device id). */
  async endOrphanedWaitpoints(): Promise<void> {
    const orphans = await this.deps.store.tables.devices.orphanedWaitpoints();
    if (orphans.length === 0) return;
    await this.#endWaitpoints(
      "its device was removed (vigil devices rm); no file from there can resolve it now",
      async () => orphans,
    );
  }

  /** Forgets collected names whose files the devices confirmed removed long enough ago. */
  prune(): Promise<number> {
    return this.deps.store.tables.devices.pruneCollected(this.deps.now());
  }

  stop(): void {
    this.#running = false;
    if (this.#prune) clearInterval(this.#prune);
    for (const collector of this.#collectors.values()) collector.stop();
    this.#collectors.clear();
  }

  /**
   * Team mode: stops collecting the devices removed through another host's API (each heartbeat
   * calls this; the host that adds a device collects it, and any host may remove it).
   */
  reconcile(): Promise<void> {
    return this.#oneAtATime(async () => {
      if (!this.#running || this.#collectors.size === 0) return;
      const ids = new Set((await this.deps.store.tables.devices.all()).map((device) => device.id));
      for (const [name, collector] of this.#collectors) {
        if (ids.has(collector.deviceId)) continue;
        collector.stop();
        this.#collectors.delete(name);
        this.deps.log.info(`device ${name}: removed through another host; no longer collected`);
      }
    });
  }

  async list(): Promise<DeviceView[]> {
    const devices = await this.deps.store.tables.devices.all();
    return devices.map((d) => deviceView(d, this.#collectors.get(d.name)?.collection ?? null));
  }

  add(input: DeviceAdd): Promise<DeviceView> {
    return this.#oneAtATime(() => this.#add(input));
  }

  async #add(input: DeviceAdd): Promise<DeviceView> {
    const { store, now } = this.deps;
    if (await store.tables.devices.byName(input.name))
      throw new ConflictError(`A device named ${input.name} already exists`);
    if (input.identity !== undefined && !existsSync(input.identity))
      throw new ValidationError(`identity: Expected an existing key file, got ${input.identity} (no such file)`);
    const at = input.ssh.lastIndexOf("@");
    await store.tables.devices.insert({
      id: `dev_${randomBytes(8).toString("hex")}`,
      name: input.name,
      user: at === -1 ? null : input.ssh.slice(0, at),
      host: input.ssh.slice(at + 1),
      port: input.port ?? null,
      identity: input.identity ?? null,
      createdAt: now(),
      hostId: this.deps.hostId,
    });
    const device = (await store.tables.devices.byName(input.name)) as DeviceRow;
    if (this.#running) this.#open(device);
    this.deps.changed?.();
    return deviceView(device);
  }

  /** Closes its connection at once, forgets it, and ends its armed waitpoints (`lost`). */
  remove(name: string): Promise<void> {
    return this.#oneAtATime(() => this.#remove(name));
  }

  async #remove(name: string): Promise<void> {
    const device = await this.deps.store.tables.devices.byName(name);
    if (!device) throw new NotFoundError(`No device named ${name}`);
    this.#collectors.get(name)?.stop();
    this.#collectors.delete(name);
    await this.#endWaitpoints(
      `its device ${name} was removed (vigil devices rm); no file from there can resolve it now`,
      async (t) => {
        // Read in the transaction that deletes the device: one armed for it meanwhile is ended too.
        const armed = await t.devices.armedWaitpoints(device.id);
        await t.devices.delete(name);
        return armed;
      },
    );
    this.deps.changed?.();
  }

  /**
   * Ends the waitpoints `inTx` returns (after whatever else it writes) in one transaction; tells
   * their sessions and the scheduler.
   */
  async #endWaitpoints(detail: string, inTx: (t: Tables) => Promise<number[]>): Promise<void> {
    const { store, endings, now } = this.deps;
    const sessions = await store.tx(async (t) => endDeviceWaitpointsInTx(t, endings, await inTx(t), detail, now()));
    for (const session of sessions) this.deps.changes.emit(session);
    if (sessions.length > 0) this.deps.poke();
  }

  #oneAtATime<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(work);
    this.#queue = result.catch(() => undefined);
    return result;
  }

  #open(device: DeviceRow): void {
    const collector = new Collector(this.deps, device);
    this.#collectors.set(device.name, collector);
    collector.start();
  }
}
