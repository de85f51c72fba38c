/**
 * A real PostgreSQL 15 (Debian's package) for a test run: its own cluster in a temp dir, reached
 * only through a Unix socket in that dir, started and stopped here — never the system service or
 * its cluster. Installed with apt when missing and running as root, else a clear error (as the
 * browser and sshd tests do); the tests never skip.
 *
 * The server refuses to run as root, so as root it runs as the `postgres` user the package makes
 * (or a throwaway system user when that is absent). Each started cluster records the pid and start
 * time of the process that started it: a later start removes clusters whose starter is gone (a
 * crashed or killed test run), so nothing is left running.
 * For team mode (#27): the PostgreSQL engine is tested against this server.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { processStart } from "../../native-host/src/base/process-start.js";
import { findOrInstall } from "./apt.js";

export const PG_VERSION = 15;
export const PG_BIN = `/usr/lib/postgresql/${PG_VERSION}/bin`;
/** The superuser initdb makes; trust auth on the socket only (the socket dir is 0700). */
export const PG_USER = "vigil";
const PREFIX = "vigil-pg-";
const OWNER_FILE = "owner.json";
/** How the server in a dir was started (user, options): what `attach` needs to pause and resume it. */
const SERVER_FILE = "server.json";
const THROWAWAY_USER = "vigil-pg-test";

export interface PostgresOptions {
  /**
   * fsync, full-page writes and synchronous commit as in production (for benchmarks). Off by
   * default: a test cluster is thrown away, and its crash safety is not what tests measure.
   */
  durable?: boolean;
  /** Where the temp dir goes (default: the OS temp dir). */
  parent?: string;
  /** More server options (`-c name=value`, …), e.g. to listen on TCP with ssl=on. */
  serverArgs?: string[];
  /** Lines put first in pg_hba.conf (the first that matches decides), e.g. `hostssl all all 127.0.0.1/32 trust`. */
  hbaLines?: string[];
  /** Files written into the cluster's dir (owned by the server's user, 0600) before it starts: certificates, keys. */
  files?: Record<string, string>;
}

/** Who the server runs as: ourselves, or (as root) an unprivileged user. */
interface RunAs {
  uid: number;
  gid: number;
  name: string;
}

interface Owner {
  pid: number;
  start: string | null;
}

/** Debian's server binaries, installed with apt when missing and root (without starting its service). */
export function findPostgres(): string {
  const postgres = join(PG_BIN, "postgres");
  if (existsSync(postgres)) return PG_BIN;
  // The package's post-install creates and starts a "main" cluster through invoke-rc.d: a
  // policy-rc.d answering 101 ("action forbidden") keeps that service stopped while it installs.
  const policy = "/usr/sbin/policy-rc.d";
  const ownPolicy = process.getuid?.() === 0 && !existsSync(policy);
  if (ownPolicy) writeFileSync(policy, "#!/bin/sh\nexit 101\n", { mode: 0o755 });
  try {
    findOrInstall({ name: `PostgreSQL ${PG_VERSION}`, paths: [postgres], aptPackage: `postgresql-${PG_VERSION}` });
  } finally {
    if (ownPolicy) rmSync(policy, { force: true });
  }
  return PG_BIN;
}

function idOf(name: string): RunAs | null {
  const uid = spawnSync("id", ["-u", name], { encoding: "utf8" });
  const gid = spawnSync("id", ["-g", name], { encoding: "utf8" });
  if (uid.status !== 0 || gid.status !== 0) return null;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()), name };
}

function runAs(): RunAs {
  const uid = process.getuid?.() ?? 0;
  if (uid !== 0) return { uid, gid: process.getgid?.() ?? uid, name: "(this user)" };
  const existing = idOf("postgres") ?? idOf(THROWAWAY_USER);
  if (existing) return existing;
  execFileSync("useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", THROWAWAY_USER]);
  const made = idOf(THROWAWAY_USER);
  if (!made) throw new Error(`Expected useradd to create ${THROWAWAY_USER}, but id does not know it`);
  return made;
}

/** Runs one of the server's programs as `user`; throws with its output when it fails. */
function runTool(user: RunAs, tool: string, args: string[], cwd: string): string {
  const result = spawnSync(join(PG_BIN, tool), args, {
    cwd,
    uid: user.uid,
    gid: user.gid,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8", LC_ALL: "C.UTF-8" },
    timeout: 120_000,
  });
  if (result.status !== 0) {
    const output = `${result.stdout ?? ""}${result.stderr ?? ""}`.trim();
    throw new Error(
      `Expected ${tool} ${args.join(" ")} (as ${user.name}) to succeed, got ${result.error?.message ?? `exit ${result.status}`}: ${output}`,
    );
  }
  return result.stdout;
}

/**
 * Whether `pid` is a running process. A zombie is not: the postmaster is reparented when pg_ctl
 * exits, and until its new parent reaps it a stopped server still answers kill(pid, 0).
 */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** The postmaster's pid from `postmaster.pid` (its first line), or null when no server runs there. */
export function postmasterPid(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Stops whatever runs in `dir` (fast, then immediate, then SIGKILL) and removes the dir. */
function teardown(dir: string, user: RunAs): void {
  const data = join(dir, "data");
  const pid = postmasterPid(data);
  if (pid !== null && isRunning(pid)) {
    for (const mode of ["fast", "immediate"]) {
      const stop = spawnSync(join(PG_BIN, "pg_ctl"), ["stop", "-D", data, "-m", mode, "-w", "-t", "20"], {
        uid: user.uid,
        gid: user.gid,
        stdio: "ignore",
        timeout: 30_000,
      });
      if (stop.status === 0 || !isRunning(pid)) break;
    }
    if (isRunning(pid)) process.kill(pid, "SIGKILL");
  }
  rmSync(dir, { recursive: true, force: true });
}

/** Clusters under `parent` whose starting process is gone: stopped and removed. Returns their dirs. */
export function sweepOrphans(parent = tmpdir()): string[] {
  const swept: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(parent).filter((name) => name.startsWith(PREFIX));
  } catch {
    return swept;
  }
  for (const name of entries) {
    const dir = join(parent, name);
    let owner: Owner | null = null;
    try {
      owner = JSON.parse(readFileSync(join(dir, OWNER_FILE), "utf8")) as Owner;
    } catch {
      // Not ours yet (being made this instant) or not ours at all: left alone.
      continue;
    }
    const running = isRunning(owner.pid) && (owner.start === null || processStart(owner.pid) === owner.start);
    if (running) continue;
    teardown(dir, runAs());
    swept.push(dir);
  }
  return swept;
}

const INITDB_ARGS = [
  "-U",
  PG_USER,
  "-E",
  "UTF8",
  "--locale=C",
  "--auth-local=trust",
  "--auth-host=reject",
  "--no-sync",
];

/**
 * A freshly initialised data directory, made once per machine and user and copied for each start:
 * initdb takes seconds (5.4 s on this loaded 2-core machine, against 1.4 s for a copy). It is never
 * started itself; its name carries the version and initdb's arguments, so a change makes a new one.
 * Made under a temporary name and renamed into place, so runs starting together never see half of one.
 */
function templateFor(user: RunAs, parent: string): string {
  const key = createHash("sha256").update(INITDB_ARGS.join(" ")).digest("hex").slice(0, 8);
  const template = join(parent, `vigil-pgtemplate-${PG_VERSION}-${user.uid}-${key}`);
  if (existsSync(join(template, "PG_VERSION"))) return template;
  const building = mkdtempSync(`${template}.building-`);
  chownSync(building, user.uid, user.gid);
  try {
    runTool(user, "initdb", ["-D", join(building, "data"), ...INITDB_ARGS], building);
    try {
      renameSync(join(building, "data"), template);
    } catch (error) {
      // Another run made it meanwhile: theirs is as good.
      if (!existsSync(join(template, "PG_VERSION"))) throw error;
    }
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  return template;
}

/** Copies the template into `data`, keeping its owner and modes (cp -a); the server wants it 0700. */
function copyTemplate(template: string, data: string): void {
  execFileSync("cp", ["-a", template, data]);
  chmodSync(data, 0o700);
}

/** A URL for `database` on the server whose socket is in `socketDir` (what VIGIL_DATABASE_URL takes). */
export function urlAt(socketDir: string, database = "postgres"): string {
  return `postgres://${PG_USER}@/${encodeURIComponent(database)}?host=${encodeURIComponent(socketDir)}`;
}

/**
 * Creates an empty database on the server at `socketDir` and returns its URL: what a test file does
 * with the socket dir a globalSetup provides (one server per run, a database per file).
 */
export async function createDatabaseAt(socketDir: string, name: string): Promise<string> {
  if (!/^[a-z][a-z0-9_]{0,62}$/.test(name)) throw new Error(`Expected a database name like vigil_a1, got ${name}`);
  const client = new pg.Client({ connectionString: urlAt(socketDir) });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return urlAt(socketDir, name);
}

export class TestPostgres {
  #stopped = false;
  readonly #onExit = () => this.stopSync();

  private constructor(
    /** The temp dir holding `data/`, `sock/` and `postgres.log`. */
    readonly dir: string,
    readonly user: RunAs,
    /** The postmaster's pid (a new one after `resume()`). */
    public pid: number,
    private readonly serverOptions: string,
    /** Started by another process (a globalSetup): this handle may pause and resume it, never stop it. */
    readonly attached = false,
  ) {
    if (attached) this.#stopped = true;
    else process.once("exit", this.#onExit);
  }

  /**
   * A handle on the server another process started in `dir` (the postgres project's globalSetup
   * provides it): for tests that pause and resume the shared server. `stop()` leaves it running.
   */
  static attach(dir: string): TestPostgres {
    const { user, serverOptions } = JSON.parse(readFileSync(join(dir, SERVER_FILE), "utf8")) as {
      user: RunAs;
      serverOptions: string;
    };
    const pid = postmasterPid(join(dir, "data"));
    if (pid === null) throw new Error(`Expected a running PostgreSQL in ${dir}, found no postmaster.pid`);
    return new TestPostgres(dir, user, pid, serverOptions, true);
  }

  get dataDir(): string {
    return join(this.dir, "data");
  }

  get socketDir(): string {
    return join(this.dir, "sock");
  }

  /** A connection URL for `database` over the Unix socket (what VIGIL_DATABASE_URL will take). */
  url(database = "postgres"): string {
    return urlAt(this.socketDir, database);
  }

  /** Starts a fresh cluster (a copy of the initdb template), waiting until it accepts connections. */
  static async start(options: PostgresOptions = {}): Promise<TestPostgres> {
    const parent = options.parent ?? tmpdir();
    sweepOrphans(parent);
    findPostgres();
    const user = runAs();
    const dir = mkdtempSync(join(parent, PREFIX));
    // The owner first: a sweep running meanwhile leaves a dir with a live owner alone.
    const owner: Owner = { pid: process.pid, start: processStart(process.pid) };
    writeFileSync(join(dir, OWNER_FILE), JSON.stringify(owner));
    const fast = options.durable ? [] : ["-c fsync=off", "-c full_page_writes=off", "-c synchronous_commit=off"];
    const serverOptions = [
      `-k ${join(dir, "sock")}`,
      "-c listen_addresses=''",
      ...fast,
      ...(options.serverArgs ?? []),
    ].join(" ");
    writeFileSync(join(dir, SERVER_FILE), JSON.stringify({ user, serverOptions }));
    try {
      mkdirSync(join(dir, "sock"), { mode: 0o700 });
      for (const path of [dir, join(dir, "sock")]) chownSync(path, user.uid, user.gid);
      chmodSync(dir, 0o700);
      copyTemplate(templateFor(user, parent), join(dir, "data"));
      for (const [name, text] of Object.entries(options.files ?? {})) {
        writeFileSync(join(dir, name), text, { mode: 0o600 });
        chownSync(join(dir, name), user.uid, user.gid);
      }
      if (options.hbaLines) {
        const hba = join(dir, "data", "pg_hba.conf");
        writeFileSync(hba, `${options.hbaLines.join("\n")}\n${readFileSync(hba, "utf8")}`);
      }
      runTool(
        user,
        "pg_ctl",
        ["start", "-D", "data", "-l", "postgres.log", "-w", "-t", "60", "-o", serverOptions],
        dir,
      );
    } catch (error) {
      const log = existsSync(join(dir, "postgres.log")) ? readFileSync(join(dir, "postgres.log"), "utf8") : "";
      teardown(dir, user);
      throw new Error(
        `PostgreSQL ${PG_VERSION} did not start in ${dir}${log ? `; its log:\n${log.slice(-2000)}` : ""}`,
        {
          cause: error,
        },
      );
    }
    const pid = postmasterPid(join(dir, "data"));
    if (pid === null) throw new Error(`Expected ${dir}/data/postmaster.pid after pg_ctl start, found none`);
    return new TestPostgres(dir, user, pid, serverOptions);
  }

  /** A client connected to `database` (the caller ends it). */
  async connect(database = "postgres"): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.url(database) });
    await client.connect();
    return client;
  }

  /** Creates an empty database and returns its URL: one per test file or daemon, cheap (a template copy). */
  createDatabase(name: string): Promise<string> {
    return createDatabaseAt(this.socketDir, name);
  }

  /**
   * Stops the server but keeps its data (a database outage); `resume()` starts it again. `fast`
   * ends the sessions and shuts down cleanly; `immediate` is a crash (recovery from the WAL at start).
   */
  pause(mode: "fast" | "immediate" = "fast"): void {
    runTool(this.user, "pg_ctl", ["stop", "-D", "data", "-m", mode, "-w", "-t", "60"], this.dir);
  }

  /** Starts the paused server again, on the same socket and data; returns its new postmaster pid. */
  resume(): number {
    runTool(
      this.user,
      "pg_ctl",
      ["start", "-D", "data", "-l", "postgres.log", "-w", "-t", "60", "-o", this.serverOptions],
      this.dir,
    );
    const pid = postmasterPid(this.dataDir);
    if (pid === null) throw new Error(`Expected ${this.dataDir}/postmaster.pid after pg_ctl start, found none`);
    this.pid = pid;
    return pid;
  }

  /** Stops the server (fast shutdown) and removes its dir; safe to call twice. */
  async stop(): Promise<void> {
    this.stopSync();
  }

  stopSync(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    process.off("exit", this.#onExit);
    teardown(this.dir, this.user);
  }
}
