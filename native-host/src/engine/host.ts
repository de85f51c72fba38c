/**
 * This daemon as a host of the team (#27, design.md §9.1): its row in `hosts`, taken at start under
 * its name (refused while another live daemon holds that name), a heartbeat every HEARTBEAT_MS, and
 * `stopped_at` at a clean stop. Each heartbeat also has the schedulers look again (`onBeat`): on a
 * shared database that is the fallback for a notification that never came (a daemon killed between
 * its commit and its NOTIFY, a listening connection lost).
 */
import { randomBytes } from "node:crypto";
import type { HostAbsence, HostView, PanelHost } from "../../../shared/schemas/views.js";
import { ConflictError, NotFoundError } from "../base/errors.js";
import { inBackground, type Logger, toError } from "../base/log.js";
import type { Engine } from "../store/engine.js";
import { HEARTBEAT_MS, type HostBrief, type HostRow, type HostRun, hostOnline } from "../store/hosts.js";
import type { MonitorRecord } from "../store/monitors.js";

export interface HostIdentity {
  id: string;
  name: string;
}

/** This daemon's run of its host: the heartbeat and the stop are written only while the row is this run's. */
export type HostRunIdentity = HostIdentity & HostRun;

/**
 * Takes the row for `name`: a new one, or the same name's row after its daemon stopped or died.
 * `previous` is the host id this home had last time (`$VIGIL_HOME/host-id`): the home's lock says
 * that daemon is gone even when its heartbeat is fresh (it was killed a moment ago).
 */
export async function registerHost(
  store: Engine,
  start: { name: string; version: string; pid: number; now: number; previous?: string | null },
): Promise<HostRunIdentity & { adopted: number }> {
  return store.tx(async (t) => {
    const known = await t.hosts.byName(start.name);
    if (known && known.id !== start.previous && hostOnline(known, start.now)) {
      const seconds = Math.max(0, Math.round((start.now - known.heartbeatAt) / 1000));
      throw new ConflictError(
        `Expected no other running daemon named ${start.name} on this database, got one (pid ${known.pid}, last heartbeat ${seconds} s ago): give this one another name with --host-name NAME (or VIGIL_HOST_NAME)`,
      );
    }
    // This home's own row, under a new name (the machine renamed, --host-name changed): its
    // sessions and checks stay its own.
    const own = start.previous ? await t.hosts.byId(start.previous) : undefined;
    if (own && known && known.id !== own.id) {
      throw new ConflictError(
        `Expected the name ${start.name} to be free or this home's, got another host's (stopped or offline; its sessions still name it): keep this home's name ${own.name}, or pick another with --host-name NAME`,
      );
    }
    const id = own?.id ?? known?.id ?? `h_${randomBytes(6).toString("hex")}`;
    const row = { id, name: start.name, version: start.version, pid: start.pid, now: start.now };
    if (own || known) await t.hosts.restart(row);
    else await t.hosts.insert(row);
    const adopted = await t.hosts.adopt(id);
    return { id, name: start.name, pid: start.pid, startedAt: start.now, adopted };
  });
}

/**
 * Forgets a host of the team (`vigil hosts rm`): one that is not running and that no session names
 * (a machine retired, a name given up). Its devices are left for the next host that starts.
 */
export async function forgetHost(store: Engine, name: string, self: string, now: number): Promise<void> {
  await store.tx(async (t) => {
    const host = await t.hosts.byName(name);
    if (!host) throw new NotFoundError(`No host named ${name} on this database`);
    if (host.id === self)
      throw new ConflictError(`Expected another host than this daemon's own, got ${name}: forget it from another host`);
    if (hostOnline(host, now)) {
      const seconds = Math.max(0, Math.round((now - host.heartbeatAt) / 1000));
      throw new ConflictError(
        `Expected ${name} to be stopped or offline, got it online (heartbeat ${seconds} s ago): stop its daemon first`,
      );
    }
    if (!(await t.hosts.forget(host.id)))
      throw new ConflictError(
        `Expected ${name} to hold no session, got sessions made there: remove them (vigil sessions rm ID) or start ${name} again`,
      );
  });
}

/**
 * The team's one clock (design.md §9.1): due times, leases and deadlines written by one host are
 * read by the others, so every daemon on a shared database tells time by the database's clock
 * (`clock_timestamp()`), read at start and at each heartbeat, half the round trip allowed for. A
 * machine whose own clock is off then neither takes another host's check early nor lets one wait.
 */
export class DatabaseClock {
  #offset = 0;

  constructor(private readonly store: Engine) {}

  readonly now = (): number => Date.now() + this.#offset;

  /** How far the database's clock is ahead of this machine's (ms; negative: behind). */
  get offsetMs(): number {
    return this.#offset;
  }

  async sync(): Promise<void> {
    const before = Date.now();
    const database = await this.store.tables.hosts.clock();
    const after = Date.now();
    // A slow round trip says little about the time; the next heartbeat tries again.
    if (after - before > 1000) return;
    const offset = Math.round(database - (before + after) / 2);
    // Small moves are noise: time should not step back and forth by a millisecond or two.
    if (Math.abs(offset - this.#offset) > 10) this.#offset = offset;
  }
}

/** The heartbeat: written every HEARTBEAT_MS while the daemon runs. */
export class HostBeat {
  readonly #timer: NodeJS.Timeout;
  #failing = false;

  constructor(
    private readonly store: Engine,
    private readonly host: HostRunIdentity,
    private readonly log: Logger,
    private readonly options: {
      now?: () => number;
      onBeat?: () => void;
      /** The row is no longer this run's: another daemon runs as this host now; this one must stop. */
      onLost?: () => void;
      everyMs?: number;
    } = {},
  ) {
    this.#timer = setInterval(
      () => inBackground(log, "the host heartbeat", this.#beat()),
      options.everyMs ?? HEARTBEAT_MS,
    );
    this.#timer.unref();
  }

  async #beat(): Promise<void> {
    try {
      const mine = await this.store.tables.hosts.heartbeat(this.host, (this.options.now ?? Date.now)());
      if (!mine) {
        clearInterval(this.#timer);
        this.log.error(
          `host ${this.host.name}: another daemon took this host's row while this one was cut off (or a copy of this home started elsewhere); this one stops so the work is not done twice`,
        );
        this.options.onLost?.();
        return;
      }
      if (this.#failing) this.log.info(`host ${this.host.name}: heartbeat written again`);
      this.#failing = false;
    } catch (error) {
      if (!this.#failing)
        this.log.warn(`host ${this.host.name}: writing the heartbeat failed: ${toError(error).message}`);
      this.#failing = true;
    }
    this.options.onBeat?.();
  }

  /** A clean stop: the host reads "stopped" at once rather than offline after three missed beats. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    try {
      await this.store.tables.hosts.stop(this.host, (this.options.now ?? Date.now)());
    } catch (error) {
      this.log.warn(`host ${this.host.name}: recording the stop failed: ${toError(error).message}`);
    }
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The host list is read again at least this often, whatever the census says. */
export const HOST_LIST_FALLBACK_MS = 60_000;

/** Online while its heartbeat is recent; stopped after a clean stop; offline when the heartbeats stopped. */
export function hostState(host: HostBrief, now: number): HostView["state"] {
  return host.stoppedAt !== null ? "stopped" : hostOnline(host, now) ? "online" : "offline";
}

/** A host that is not running: since its stop, or its last heartbeat; null while it runs. */
export function hostAbsence(host: HostBrief, now: number): HostAbsence | null {
  const state = hostState(host, now);
  if (state === "online") return null;
  return { host: host.name, state, since: iso(host.stoppedAt ?? host.heartbeatAt) };
}

/**
 * An armed monitor whose checks need a host that is away (design.md §9.1): nothing checks it until
 * that host is back. Null for a host-free check, an ended monitor, or a host that runs.
 */
export function waitingForHost(
  record: MonitorRecord,
  hosts: ReadonlyMap<string, HostBrief>,
  now: number,
): HostAbsence | null {
  const hostId = record.trigger?.hostId;
  if (!hostId || record.endingReason !== null) return null;
  const host = hosts.get(hostId);
  return host ? hostAbsence(host, now) : null;
}

/**
 * Tells when a host of the team comes, goes or stops (asked at each heartbeat): nothing is written
 * when a host dies, so the side panel hears of it from here ("host beta offline since …"). Each
 * look reads one row, the hosts' census (store/hosts.ts); the list itself is read only when the
 * census moved, and every `fallbackMs` in case two moves cancelled out (#41: O(1) per heartbeat).
 */
export class HostStateWatch {
  #last: string | null = null;
  #census: string | null = null;
  #readAt = 0;

  constructor(
    private readonly store: Engine,
    private readonly now: () => number,
    private readonly onChange: () => void,
    private readonly fallbackMs = HOST_LIST_FALLBACK_MS,
  ) {}

  async check(): Promise<void> {
    const now = this.now();
    const census = await this.store.tables.hosts.census(now);
    if (census === this.#census && now < this.#readAt) return;
    this.#census = census;
    this.#readAt = now + this.fallbackMs;
    const key = (await this.store.tables.hosts.brief()).map((host) => `${host.id}:${hostState(host, now)}`).join(",");
    if (this.#last !== null && key !== this.#last) this.onChange();
    this.#last = key;
  }
}

/** The hosts as the side panel shows them. */
export function panelHosts(rows: readonly HostBrief[], self: string, now: number): PanelHost[] {
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    state: hostState(row, now),
    since: hostAbsence(row, now)?.since ?? null,
    self: row.id === self,
  }));
}

/** The hosts as the API shows them, `self` marking the daemon that answers. */
export function hostViews(rows: readonly HostRow[], self: string, now: number): HostView[] {
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    version: row.version,
    pid: row.pid,
    state: hostState(row, now),
    startedAt: iso(row.startedAt),
    heartbeatAt: iso(row.heartbeatAt),
    stoppedAt: row.stoppedAt === null ? null : iso(row.stoppedAt),
    sessions: row.sessions,
    bound: row.bound,
    self: row.id === self,
  }));
}
