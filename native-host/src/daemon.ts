/**
 * The composition root of `vigil serve`: prepares $VIGIL_HOME, opens the store, builds every
 * service once (wireServices: none builds its peers), serves the API on the owner-only socket
 * $VIGIL_HOME/api.sock and the public routes on 127.0.0.1, writes daemon.json when ready, exits
 * cleanly on SIGTERM, SIGINT and SIGHUP (the terminal that ran `vigil serve` closed).
 * Design: docs/design.md §1.
 */

import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { homedir, hostname, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ROUTES } from "../../shared/api-routes.js";
import { DEFAULT_SETTINGS, envConfig, loadSettings, type ResolvedSettings } from "./base/config.js";
import { passwordOf } from "./base/database-url.js";
import {
  answers,
  type DaemonInfo,
  ensureHome,
  ensureHostKey,
  ensureToken,
  HOST_KEY_BYTES,
  isAlive,
  readDaemonInfo,
  tightenHome,
} from "./base/home.js";
import { createLogger, inBackground, type Logger, toError } from "./base/log.js";
import { packageRoot, packageVersion } from "./base/paths.js";
import { readTeamFile, writeTeamFile } from "./base/team-file.js";
import { BrowserLink } from "./browser/link.js";
import { Changes } from "./core/changes.js";
import type { EndingDeps } from "./core/endings.js";
import { Waitpoints } from "./core/waitpoints.js";
import { Delivery } from "./delivery/delivery.js";
import { Devices } from "./devices/devices.js";
import { AttentionClock, wakeNotTakenMs } from "./engine/attention-clock.js";
import { Engine } from "./engine/engine.js";
import {
  DatabaseClock,
  HostBeat,
  type HostIdentity,
  type HostRunIdentity,
  HostStateWatch,
  registerHost,
} from "./engine/host.js";
import { needsYou } from "./engine/panel-page.js";
import { sealUnsealedRows } from "./engine/seal-upgrade.js";
import { Sealer } from "./engine/seals.js";
import { TeamLink } from "./engine/team-link.js";
import type { ApiServices } from "./http/route-context.js";
import { createApiServer } from "./http/server.js";
import { Spool } from "./intake/spool.js";
import { NotifyChannels } from "./notify/channels-admin.js";
import { NOTIFY_OUTBOX_KEPT_MS, Notifier, type NotifySettings, notifySettingsFromEnv } from "./notify/notifier.js";
import { probeFor } from "./probes/registry.js";
import { configureSpawner } from "./probes/run-shell.js";
import { Shield } from "./secrets/shield.js";
import { Vault } from "./secrets/vault.js";
import type { Engine as StoreEngine } from "./store/engine.js";
import { HomeLockedError, lockHome } from "./store/home-lock.js";
import { HEARTBEAT_MS, UNREGISTERED_HOST } from "./store/hosts.js";
import { openStore } from "./store/open.js";
import { HOUSEKEEPING_LOCK_KEY, whileLockFree } from "./store/pg/connection.js";
import { shieldGhTokensWith } from "./tools/github-api.js";

/** The CLI line a job runs to signal: this checkout's bin, with --home when it is not the default. */
function signalCommand(home: string): string {
  const bin = join(packageRoot, "bin", "vigil.js");
  return home === join(homedir(), ".vigil") ? bin : `${bin} --home ${home}`;
}

export interface ServiceOptions {
  store: StoreEngine;
  log: Logger;
  now?: () => number;
  shield?: Shield;
  settings?: ResolvedSettings;
  browser?: BrowserLink;
  /** How an outside job reaches this daemon (for waitpoints' how_to_signal lines). */
  signalTarget?: () => { command: string; url: string; spoolDir: string };
  /** Where device connections keep their control sockets ($VIGIL_HOME/tmp). */
  deviceControlDir?: string;
  /** This daemon's host (team mode; `registerHost`); the in-process harnesses leave it out. */
  host?: HostIdentity;
  /** This host's sealing key ($VIGIL_HOME/host.key); the in-process harnesses get a random one. */
  hostKey?: Buffer;
  /** The notifier's timings (default: from the environment). */
  notify?: NotifySettings;
}

/** The daemon's services, each built once here and handed what it needs. */
export async function wireServices(options: ServiceOptions) {
  const { store, log } = options;
  const now = options.now ?? Date.now;
  const host = options.host ?? { id: UNREGISTERED_HOST, name: defaultHostName() };
  const hostId = host.id;
  const sealer = new Sealer(options.hostKey ?? randomBytes(HOST_KEY_BYTES), hostId);
  const shield = options.shield ?? new Shield(await store.tables.vault.entries());
  const changes = new Changes();
  // A wake not taken for a while needs the person with nothing else changing: the panel hears of it.
  const attentionClock = new AttentionClock(changes, wakeNotTakenMs(), now);
  const browser = options.browser ?? new BrowserLink({ log });
  const vault = new Vault(store, shield, now);
  // A token `gh auth token` gives a github__* check is masked like a vault value.
  shieldGhTokensWith((key, value) => shield.set(key, value));
  const endings: EndingDeps = {
    store,
    shield,
    log,
    describe: (record) => probeFor(record.kind).describe(record.source as never),
  };
  let engine: Engine | undefined;
  const waitpoints = new Waitpoints({
    ...endings,
    changes,
    now,
    poke: () => engine?.poke(),
    settings: options.settings ?? DEFAULT_SETTINGS,
    hostId,
    target:
      options.signalTarget ??
      (() => ({ command: "vigil", url: "http://127.0.0.1:7391/webhook/signal", spoolDir: "~/.vigil/tmp/signals" })),
  });
  engine = new Engine({ store, log, now, endings, changes, vault, browser, waitpoints, hostId, sealer });
  const delivery = new Delivery({ store, log, shield, changes, now, hostId, sealer });
  const devices = new Devices({
    store,
    log,
    now,
    signal: (body, via, origin) => waitpoints.signal(body, via, origin),
    controlDir: options.deviceControlDir ?? tmpdir(),
    changed: () => browser.changed(null),
    endings,
    changes,
    poke: () => engine?.poke(),
    hostId,
  });
  const notifier = new Notifier({
    store,
    log,
    shield,
    now,
    hostId,
    team: store.engine === "postgres",
    settings: options.notify ?? notifySettingsFromEnv(),
    attention: async () => {
      const checks = () => (engine as Engine).checkLoad();
      return (await needsYou({ store, shield, devices: () => devices.list(), checks }, now())).attention.items;
    },
  });
  const notify = new NotifyChannels({ store, vault, shield, notifier, hostId, now });
  return {
    store,
    log,
    shield,
    changes,
    browser,
    vault,
    waitpoints,
    engine,
    delivery,
    devices,
    host,
    now,
    sealer,
    notifier,
    notify,
    attentionClock,
  };
}

export type Services = ReturnType<typeof wireServices>;

function listenOn(server: Server, listen: (done: () => void) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    listen(() => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** The machine's hostname as a host name (team mode): characters a name may not hold become '-'. */
export function defaultHostName(): string {
  const name = hostname()
    .replace(/[^A-Za-z0-9._-]/g, "-")
    .replace(/^[^A-Za-z0-9]+/, "")
    .slice(0, 63);
  return name || "localhost";
}

export async function runDaemon(options: {
  home: string;
  port: number;
  database?: string;
  hostName?: string;
}): Promise<void> {
  const paths = ensureHome(options.home);
  const previous = readDaemonInfo(paths);
  if (previous && previous.pid !== process.pid && isAlive(previous.pid) && (await answers(paths))) {
    throw new Error(`A Vigil daemon already runs for ${options.home} (pid ${previous.pid}, ${previous.url})`);
  }
  // Before the store opens: the pool's size and statement timeout are settings too.
  const settings = loadSettings(options.home);
  let lock: { close(): void };
  try {
    lock = lockHome(join(options.home, "daemon.lock"));
  } catch (error) {
    if (!(error instanceof HomeLockedError)) throw error;
    const holder = readDaemonInfo(paths);
    throw new Error(
      `A Vigil daemon already runs for ${options.home}${holder ? ` (pid ${holder.pid}, ${holder.url})` : " (it is starting)"}`,
    );
  }
  const token = ensureToken(paths);
  const hostKey = ensureHostKey(paths);
  tightenHome(paths);
  // Until the shield knows the vault's values, warnings go to the log file through a shield of none.
  let log = createLogger({ file: paths.log, shield: new Shield([]) });
  // A home that ran in a team joins it again when started plainly (base/team-file.ts).
  const remembered = readTeamFile(options.home);
  const databaseUrl = options.database ?? envConfig().VIGIL_DATABASE_URL ?? remembered?.databaseUrl;
  let opened: Awaited<ReturnType<typeof openStore>>;
  try {
    opened = await openStore({
      dbFile: paths.db,
      ...(databaseUrl === undefined ? {} : { url: databaseUrl }),
      applicationName: `vigil/${hostname()}`,
      pool: { max: settings.databasePoolMax, statementTimeoutMs: settings.databaseStatementTimeoutMs },
      checkScope: envConfig().VIGIL_CHECK_TX_SCOPE === "1",
      log: { warn: (message) => log.warn(message) },
    });
  } catch (error) {
    lock.close();
    throw error;
  }
  const { store } = opened;
  // On a shared database every daemon tells time by the database's clock (engine/host.ts).
  const clock = opened.pool ? new DatabaseClock(store) : null;
  const now = clock?.now ?? Date.now;
  let host: HostRunIdentity;
  try {
    await clock?.sync();
    const hostIdFile = join(options.home, "host-id");
    host = await registerHost(store, {
      name: options.hostName ?? envConfig().VIGIL_HOST_NAME ?? remembered?.hostName ?? defaultHostName(),
      version: packageVersion(),
      pid: process.pid,
      now: now(),
      // On SQLite there is only ever this home's host: its row, whatever name it had.
      previous:
        store.engine === "sqlite"
          ? ((await store.tables.hosts.list())[0]?.id ?? null)
          : existsSync(hostIdFile)
            ? readFileSync(hostIdFile, "utf8").trim()
            : null,
    });
    writeFileSync(hostIdFile, `${host.id}\n`, { mode: 0o600 });
    if (databaseUrl !== undefined) writeTeamFile(options.home, { databaseUrl, hostName: host.name });
  } catch (error) {
    await opened.close();
    lock.close();
    throw error;
  }
  const shield = new Shield(await store.tables.vault.entries());
  // A password in the database URL is masked wherever a vault value would be.
  const password = databaseUrl === undefined ? "" : passwordOf(databaseUrl);
  if (password) shield.set("database password", password);
  log = createLogger({ file: paths.log, shield });
  // The spawner's notices (missing helper, restarts) go to vigil.log like everything else.
  configureSpawner({ log: (message) => log.warn(message) });
  let url = "";
  if (clock && Math.abs(clock.offsetMs) > 1000) {
    log.warn(
      `this machine's clock is ${(clock.offsetMs / 1000).toFixed(1)} s ${clock.offsetMs > 0 ? "behind" : "ahead of"} the database's; Vigil tells time by the database's clock (keep the machines' clocks synchronized)`,
    );
  }
  const services = await wireServices({
    store,
    log,
    now,
    shield,
    settings,
    signalTarget: () => ({
      command: signalCommand(options.home),
      url: `${url}${ROUTES.signal.path}`,
      spoolDir: paths.spool,
    }),
    deviceControlDir: dirname(paths.spool),
    host,
    hostKey,
  });
  const { engine, delivery, browser, waitpoints, changes, devices, notifier, attentionClock } = services;
  // Rows armed before seals: sealed on SQLite only (engine/seal-upgrade.ts says why).
  const sealed = await sealUnsealedRows(store, services.sealer);
  if (sealed > 0) log.info(`sealed ${sealed} check(s) and adapter(s) armed before seals with this host's key`);
  await engine.start();
  await delivery.start();
  // Needs-you notifications: on their own timer, and soon after any change.
  notifier.start();
  // A wake not taken reaches an open panel when its time has passed (engine/attention-clock.ts).
  attentionClock.start();
  // Progress reports alone need nobody (core/changes.ts).
  changes.on((_sessionId, _origin, kind) => {
    if (kind === "any") notifier.poke();
  });
  // Team mode: hear the other hosts' changes at once; the heartbeat looks again in case one was missed.
  const lookAgain = () => {
    engine.poke();
    delivery.poke();
    inBackground(log, "stopping watches another host ended", engine.stopWatchesEndedElsewhere());
  };
  const link =
    opened.pool && databaseUrl !== undefined
      ? new TeamLink({ url: databaseUrl, pool: opened.pool, hostId: host.id, changes, log, lookAgain })
      : null;
  try {
    await link?.start();
  } catch (error) {
    log.warn(
      `team link: LISTEN failed (${toError(error).message}); other hosts' changes are seen at each heartbeat (every ${HEARTBEAT_MS / 1000} s)`,
    );
  }
  const team: ApiServices = link ? { ...services, team: link } : services;
  // A host that came, went or stopped: the side panel asks again (its sessions read "host … offline").
  const hostStates = new HostStateWatch(store, now, () => browser.changed(null));
  const beat = new HostBeat(store, host, log, {
    // Another daemon runs as this host now (defined below; the first beat comes 5 s after start).
    onLost: () => shutdown("the loss of this host's row", 1),
    ...(clock
      ? {
          now,
          onBeat: () => {
            inBackground(log, "reading the database's clock", clock.sync());
            lookAgain();
            // A notice from another host may have been lost: long-polls here look again.
            changes.wakeWaiters();
            inBackground(log, "reading the hosts' states", hostStates.check());
            inBackground(log, "stopping devices removed through another host", devices.reconcile());
          },
        }
      : {}),
  });
  changes.on((sessionId) => browser.changed(sessionId));
  await browser.listen(paths.browserSocket);
  const spool = new Spool({
    dir: paths.spool,
    sweepMs: settings.waitpointSweepMs,
    log,
    intake: (body) => waitpoints.signal(body, "spool", { owner: true }),
  });
  const purges = async () => {
    await waitpoints.purge(now());
    await store.tables.inboundEvents.prune(now());
    await store.tables.notify.purge(now() - NOTIFY_OUTBOX_KEPT_MS);
  };
  // On a shared database one daemon purges at a time; the others find the lock taken and skip.
  const pool = opened.pool;
  const housekeeping = async () => {
    if (pool) await whileLockFree(pool, HOUSEKEEPING_LOCK_KEY, purges);
    else await purges();
  };
  const purge = setInterval(() => inBackground(log, "the hourly purge", housekeeping()), 3_600_000);
  purge.unref();
  await housekeeping();

  const env = envConfig();
  const limits = {
    ...(env.VIGIL_HTTP_HEADERS_TIMEOUT_MS ? { headersTimeoutMs: env.VIGIL_HTTP_HEADERS_TIMEOUT_MS } : {}),
    ...(env.VIGIL_HTTP_MAX_CONNECTIONS ? { maxConnections: env.VIGIL_HTTP_MAX_CONNECTIONS } : {}),
  };
  // The owner's API: a socket in the 0700 home (a killed daemon's file is replaced; the home lock
  // above says no live daemon holds it). Created 0600 under the umask, before anyone can connect.
  const ownerServer = createApiServer({ services: team, token, limits, transport: "unix" });
  rmSync(paths.apiSocket, { force: true });
  const umask = process.umask(0o177);
  try {
    await listenOn(ownerServer, (done) => ownerServer.listen(paths.apiSocket, done));
  } finally {
    process.umask(umask);
  }
  chmodSync(paths.apiSocket, 0o600);
  const server = createApiServer({ services: team, token, limits, transport: "tcp", tcpApi: settings.tcpApi });
  try {
    await listenOn(server, (done) => server.listen(options.port, "127.0.0.1", done));
  } catch (error) {
    ownerServer.close();
    rmSync(paths.apiSocket, { force: true });
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
      throw new Error(
        `Port ${options.port} on 127.0.0.1 is taken by another program: pick another with --port N (or VIGIL_PORT=N; 0 takes any free port)`,
        { cause: error },
      );
    }
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  url = `http://127.0.0.1:${port}`;
  // Handlers before daemon.json: whoever reads it may send SIGTERM at once, and a signal with no
  // handler kills the process without the clean exit.
  let stopping = false;
  const shutdown = (signal: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    log.info(`received ${signal}, stopping`);
    spool.stop();
    devices.stop();
    attentionClock.stop();
    clearInterval(purge);
    const stopped = Promise.allSettled([engine.stop(), delivery.stop(), notifier.stop()]);
    browser.close();
    ownerServer.closeAllConnections();
    ownerServer.close();
    server.closeAllConnections();
    server.close(async () => {
      await stopped;
      await beat.stop();
      await link?.stop();
      await opened.close();
      lock.close();
      const current = readDaemonInfo(paths);
      if (current?.pid === process.pid) {
        rmSync(paths.daemonJson, { force: true });
        rmSync(paths.browserSocket, { force: true });
        rmSync(paths.apiSocket, { force: true });
      }
      process.exit(exitCode);
    });
  };
  // SIGHUP too: closing the terminal that runs `vigil serve` must not leave a stale daemon.json.
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, () => shutdown(signal));
  const info: DaemonInfo = { pid: process.pid, port, url, socket: paths.apiSocket };
  writeFileSync(`${paths.daemonJson}.tmp`, JSON.stringify(info), { mode: 0o600 });
  // rename is atomic: a reader sees the old file or the whole new one.
  renameSync(`${paths.daemonJson}.tmp`, paths.daemonJson);
  // Collect the spool once the signal URL is known (how_to_signal lines need it).
  inBackground(log, "collecting the spool", spool.start());
  inBackground(log, "starting the devices", devices.start());
  log.info(
    `vigil daemon ready on ${info.url} (home ${options.home}, store ${opened.where}, host ${host.name}, pid ${process.pid})`,
  );
}
