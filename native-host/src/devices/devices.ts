/**
 * The devices registry (design.md §5): add, list and remove the machines whose spool Vigil collects
 * over SSH, each with its own collector (collector.ts) while the daemon runs; hourly, the names of
 * collected files confirmed removed more than DEVICE_COLLECTED_RETENTION_MS ago are forgotten.
 */
import { existsSync } from "node:fs";
import type { DeviceAdd } from "../../../shared/schemas/inputs.js";
import type { DeviceView } from "../../../shared/schemas/views.js";
import { ConflictError, NotFoundError, ValidationError } from "../base/errors.js";
import { iso } from "../base/iso.js";
import type { DeviceRow } from "../store/devices.js";
import { type Collection, Collector, type CollectorDeps } from "./collector.js";

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

  constructor(private readonly deps: CollectorDeps) {}

  /** Opens a connection to every device (the daemon calls this once it serves). */
  start(): void {
    this.#running = true;
    for (const device of this.deps.store.devices.all()) {
      this.deps.store.devices.setState(device.name, "offline", device.lastError);
      this.#open(device);
    }
    this.prune();
    this.#prune = setInterval(() => this.prune(), PRUNE_EVERY_MS);
    this.#prune.unref();
  }

  /** Forgets collected names whose files the devices confirmed removed long enough ago. */
  prune(): number {
    return this.deps.store.devices.pruneCollected(this.deps.now());
  }

  stop(): void {
    this.#running = false;
    if (this.#prune) clearInterval(this.#prune);
    for (const collector of this.#collectors.values()) collector.stop();
    this.#collectors.clear();
  }

  list(): DeviceView[] {
    return this.deps.store.devices.all().map((d) => deviceView(d, this.#collectors.get(d.name)?.collection ?? null));
  }

  add(input: DeviceAdd): DeviceView {
    const { store, now } = this.deps;
    if (store.devices.byName(input.name)) throw new ConflictError(`A device named ${input.name} already exists`);
    if (input.identity !== undefined && !existsSync(input.identity))
      throw new ValidationError(`identity: Expected an existing key file, got ${input.identity} (no such file)`);
    const at = input.ssh.lastIndexOf("@");
    store.devices.insert({
      name: input.name,
      user: at === -1 ? null : input.ssh.slice(0, at),
      host: input.ssh.slice(at + 1),
      port: input.port ?? null,
      identity: input.identity ?? null,
      createdAt: now(),
    });
    const device = store.devices.byName(input.name) as DeviceRow;
    if (this.#running) this.#open(device);
    this.deps.changed?.();
    return deviceView(device);
  }

  /** Closes its connection at once and forgets it (its waitpoints keep their device's name). */
  remove(name: string): void {
    const collector = this.#collectors.get(name);
    if (!this.deps.store.devices.byName(name)) throw new NotFoundError(`No device named ${name}`);
    collector?.stop();
    this.#collectors.delete(name);
    this.deps.store.devices.delete(name);
    this.deps.changed?.();
  }

  #open(device: DeviceRow): void {
    const collector = new Collector(this.deps, device);
    this.#collectors.set(device.name, collector);
    collector.start();
  }
}
