// Team mode (#27): several daemons, each its own home and host name, on one PostgreSQL database.
// Three figures, each beside what it is compared with, from the same run:
//   1. signal ingest on POST /webhook/signal, one daemon on PostgreSQL vs on its embedded SQLite
//      (bench/ingest.js's load generator and settings), and three daemons on one database with the
//      load spread over them (two signals in three for a waitpoint of another host), then each
//      signalled for its own host's waitpoints alone (jobs signalling through their machine's daemon),
//      then each with a whole generator of its own (a team's load: each host's jobs as many as one's);
//   2. cross-host wake latency: a one-shot waitpoint armed on alpha, its signal posted to beta, until
//      alpha's long-poll (`wakes/ready?wait=25`) answers — beside the same signal posted to alpha;
//   3. idle: N waitpoints armed over three hosts, each daemon's CPU and PostgreSQL's over a window,
//      beside the same daemons with nothing armed;
//   4. idle per host at 5 and 20 hosts (#41): each daemon its own home, 500 waitpoints each.
// PostgreSQL 15 (Debian's) runs as a throwaway cluster in a temp dir on a Unix socket, as
// test/helpers/postgres.ts starts one (that file is TypeScript, so its few steps are repeated here),
// with production's fsync and synchronous_commit unless BENCH_TEAM_PG_FAST=1.
//
// `npm run bench:team` (or `node bench/team.js`). Environment, besides bench/ingest.js's
// BENCH_INGEST_SECONDS, _WARMUP, _CONNECTIONS and _WAITPOINTS:
//   BENCH_TEAM_SIGNALS (200)       one-shot signals per path in figure 2
//   BENCH_TEAM_IDLE (10000)        waitpoints armed for figure 3; 0 skips it
//   BENCH_TEAM_IDLE_SECONDS (60)   its measured window (the nothing-armed window is a quarter of it)
//   BENCH_TEAM_PG_FAST=1           fsync, full-page writes and synchronous commit off (as the tests)
//   BENCH_TEAM_RUNS (3)            runs of each of figure 1's sides (medians and their ratios)
//   BENCH_TEAM_HOSTS (5,20)        team sizes for figure 4 (idle per host); empty skips it
//   BENCH_TEAM_HOST_WAITPOINTS (500), BENCH_TEAM_HOSTS_IDLE_SECONDS (60)   figure 4's load and window
//   BENCH_TEAM_PARTS (ingest,latency,idle,hosts)   which figures to print
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
  rmSync,
  writeFileSync,
} from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { poster } from "./http-client.js";
import { baseline, CONNECTIONS, count, drive, line, SECONDS, WAITPOINTS, WARMUP_SECONDS } from "./ingest.js";
import { cpuSeconds, Daemon, fmt, quantile, sleep } from "./lib.js";

const env = (name, fallback) => Number(process.env[name] ?? fallback);
const SIGNALS = env("BENCH_TEAM_SIGNALS", 200);
const IDLE_WAITPOINTS = env("BENCH_TEAM_IDLE", 10_000);
const IDLE_SECONDS = env("BENCH_TEAM_IDLE_SECONDS", 60);
const PG_FAST = process.env.BENCH_TEAM_PG_FAST === "1";
const RUNS = env("BENCH_TEAM_RUNS", 3);
const PARTS = new Set((process.env.BENCH_TEAM_PARTS ?? "ingest,latency,idle,hosts").split(","));
const HOST_COUNTS = (process.env.BENCH_TEAM_HOSTS ?? "5,20").split(",").filter(Boolean).map(Number);
const HOST_WAITPOINTS = env("BENCH_TEAM_HOST_WAITPOINTS", 500);
const HOSTS_IDLE_SECONDS = env("BENCH_TEAM_HOSTS_IDLE_SECONDS", 60);
const HOSTS = ["alpha", "beta", "gamma"];
/** BENCH_TEAM_PROFILE=DIR: run 1's daemon on PostgreSQL runs with --cpu-prof into DIR. */
const PROFILE_DIR = process.env.BENCH_TEAM_PROFILE;
/** BENCH_TEAM_STATEMENTS=1: pg_stat_statements loaded; run 1's PostgreSQL drives (one daemon, then the three on each side) print their statements. */
const STATEMENTS = process.env.BENCH_TEAM_STATEMENTS === "1";
/** BENCH_TEAM_COMMITS=N: the daemons' commits in flight on PostgreSQL (the setting databaseCommitsInFlight). */
const COMMITS =
  process.env.BENCH_TEAM_COMMITS === undefined
    ? {}
    : { VIGIL_DATABASE_COMMITS_IN_FLIGHT: process.env.BENCH_TEAM_COMMITS };
/** The client must stay this far below its ceiling for a side's figure to be the server's (as ingest.js). */
const HEADROOM = 0.1;
/** Issue #27's goals. */
const GOAL = { p50Ms: 50, p99Ms: 250, idleCore: 0.01, ingestRatio: 0.4, ingestP99Ms: 50 };

// ------------------------------------------------------------------ a throwaway PostgreSQL cluster

const PG_BIN = "/usr/lib/postgresql/15/bin";
const PG_USER = "vigil";
/** As test/helpers/postgres.ts: the same initdb arguments, so its template (if made) is reused. */
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

/** Who the server runs as: ourselves, or as root the package's `postgres` user (it refuses root). */
function serverUser() {
  if (process.getuid() !== 0) return { uid: process.getuid(), gid: process.getgid() };
  const id = (flag) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  return { uid: id("-u"), gid: id("-g") };
}

export class BenchPostgres {
  /** `statements`: pg_stat_statements and auto_explain loaded (default: BENCH_TEAM_STATEMENTS). */
  static start({ statements: explain = STATEMENTS } = {}) {
    if (!existsSync(join(PG_BIN, "postgres"))) throw new Error(`Expected PostgreSQL 15 in ${PG_BIN}, found none`);
    const user = serverUser();
    // The test helper's prefix and owner file: a later test run sweeps this cluster if we die.
    const dir = mkdtempSync(join(tmpdir(), "vigil-pg-"));
    writeFileSync(join(dir, "owner.json"), JSON.stringify({ pid: process.pid, start: null }));
    mkdirSync(join(dir, "sock"), { mode: 0o700 });
    for (const path of [dir, join(dir, "sock")]) chownSync(path, user.uid, user.gid);
    chmodSync(dir, 0o700);
    const run = (tool, args) => {
      const result = spawnSync(join(PG_BIN, tool), args, {
        cwd: dir,
        uid: user.uid,
        gid: user.gid,
        encoding: "utf8",
        env: { PATH: process.env.PATH, LANG: "C.UTF-8", LC_ALL: "C.UTF-8" },
        timeout: 120_000,
      });
      if (result.status !== 0) {
        throw new Error(`Expected ${tool} ${args.join(" ")} to succeed, got exit ${result.status}: ${result.stderr}`);
      }
    };
    const key = createHash("sha256").update(INITDB_ARGS.join(" ")).digest("hex").slice(0, 8);
    const template = join(tmpdir(), `vigil-pgtemplate-15-${user.uid}-${key}`);
    if (existsSync(join(template, "PG_VERSION"))) {
      execFileSync("cp", ["-a", template, join(dir, "data")]);
      chmodSync(join(dir, "data"), 0o700);
    } else run("initdb", ["-D", "data", ...INITDB_ARGS]);
    const fast = PG_FAST ? ["-c fsync=off", "-c full_page_writes=off", "-c synchronous_commit=off"] : [];
    // Connections and autovacuum runs logged: the idle figure counts them.
    const logging = ["-c log_connections=on", "-c log_autovacuum_min_duration=0"];
    // Twenty daemons (figure 4) hold up to 11 connections each: more than the default 100.
    const room = ["-c max_connections=300"];
    // …and auto_explain: plans of statements over 3 ms go to the server's log (`slowestPlan`).
    const statements = explain
      ? [
          "-c shared_preload_libraries=pg_stat_statements,auto_explain",
          "-c pg_stat_statements.track=all",
          "-c pg_stat_statements.track_planning=on",
          "-c auto_explain.log_min_duration=3",
          "-c auto_explain.log_analyze=on",
        ]
      : [];
    const options = [
      `-k ${join(dir, "sock")}`,
      "-c listen_addresses=''",
      ...logging,
      ...room,
      ...fast,
      ...statements,
    ].join(" ");
    const server = new BenchPostgres(dir, run);
    process.once("exit", () => server.stop());
    run("pg_ctl", ["start", "-D", "data", "-l", "postgres.log", "-w", "-t", "60", "-o", options]);
    server.pid = Number(readFileSync(join(dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
    return server;
  }

  constructor(dir, run) {
    this.dir = dir;
    this.run = run;
  }

  url(database = "postgres") {
    return `postgres://${PG_USER}@/${database}?host=${encodeURIComponent(join(this.dir, "sock"))}`;
  }

  /** `sql` on `database` (the postgres database by default): its rows. */
  async #admin(sql, database) {
    const client = new pg.Client({ connectionString: this.url(database) });
    await client.connect();
    return (await client.query(sql).finally(() => client.end())).rows;
  }

  /** pg_stat_statements emptied (BENCH_TEAM_STATEMENTS=1). */
  async statementsReset() {
    await this.#admin("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    await this.#admin("SELECT pg_stat_statements_reset()");
  }

  /** The statements run in `database` since the reset, the costliest first: calls, ms in all and a call, plans made and their ms, rows a call. */
  async statements(database) {
    return this.#admin(
      `SELECT calls, round(total_exec_time::numeric, 1) AS total_ms, round(mean_exec_time::numeric, 3) AS mean_ms,
              plans, round(total_plan_time::numeric, 1) AS plan_ms,
              round(rows::numeric / greatest(calls, 1), 1) AS rows_per_call, left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS query
       FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
       WHERE d.datname = '${database}' ORDER BY total_exec_time DESC LIMIT 15`,
    );
  }

  /** The slowest plan auto_explain logged so far (BENCH_TEAM_STATEMENTS=1), at most 60 lines. */
  slowestPlan() {
    const log = readFileSync(join(this.dir, "postgres.log"), "utf8");
    const plans = log.split(/\n(?=\S)/).filter((entry) => entry.includes("plan:"));
    const ms = (entry) => Number(/duration: ([\d.]+) ms/.exec(entry)?.[1] ?? 0);
    const slowest = plans.sort((a, b) => ms(b) - ms(a))[0];
    return slowest === undefined
      ? "(no plan over 3 ms)"
      : `${plans.length} plans over 3 ms; the slowest:\n${slowest.split("\n").slice(0, 160).join("\n")}`;
  }

  /** Connections and autovacuum runs so far, counted in the server's log (log_connections and all autovacuum runs on). */
  logged() {
    const log = readFileSync(join(this.dir, "postgres.log"), "utf8");
    const lines = (pattern) => log.match(pattern)?.length ?? 0;
    return { connections: lines(/connection authorized/g), autovacuums: lines(/automatic (vacuum|analyze) of table/g) };
  }

  /** Transactions `database` has run so far (each autocommit statement is one): what a daemon asks of it. */
  async transactions(database) {
    const [row] = await this.#admin(
      `SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = '${database}'`,
    );
    return Number(row?.n ?? 0);
  }

  /** Events `database`'s monitors have counted so far: each signal stored is one (each drive's signals have keys of its own). */
  async storedEvents(database) {
    const [row] = await this.#admin("SELECT coalesce(sum(event_count), 0)::bigint AS n FROM monitors", database);
    return Number(row?.n ?? 0);
  }

  async createDatabase(name) {
    await this.#admin(`CREATE DATABASE ${name}`);
    return this.url(name);
  }

  /** Drops a database no daemon uses any more, so its autovacuum does not count in a later figure. */
  dropDatabase(name) {
    return this.#admin(`DROP DATABASE ${name}`);
  }

  /** The server's processes now: the postmaster and its children (backends, walwriter, …). */
  pids() {
    const children = [];
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === this.pid) children.push(Number(entry));
      } catch {
        // Gone meanwhile.
      }
    }
    return [this.pid, ...children];
  }

  /**
   * CPU per process so far, in seconds; "exited" is the postmaster's children that have exited
   * (backends of closed connections, autovacuum workers), which the postmaster has reaped.
   */
  cpu() {
    const readings = new Map(this.pids().map((pid) => [pid, cpuSeconds(pid)]));
    readings.set("exited", cpuSeconds(this.pid, true) - cpuSeconds(this.pid));
    return readings;
  }

  stop() {
    if (this.stopped) return;
    this.stopped = true;
    try {
      this.run("pg_ctl", ["stop", "-D", "data", "-m", "fast", "-w", "-t", "30"]);
    } catch {
      if (this.pid) process.kill(this.pid, "SIGKILL");
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A server process's title ("postgres: autovacuum worker", "postgres: vigil bench_team [local] idle"). */
function title(pid) {
  if (pid === "exited") return "exited processes (closed connections' backends, autovacuum workers)";
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    if (!cmdline.startsWith("postgres:")) return "the postmaster itself";
    return cmdline
      .replaceAll("\0", " ")
      .trim()
      .replace(/^postgres: /, "");
  } catch {
    return "(exited)";
  }
}

/**
 * CPU used between two `cpu()` readings: the total, and the busiest single process with its title.
 * A process that exited meanwhile moved its CPU into "exited" (all of it, also what it used before
 * the first reading): that part is taken off again.
 */
function pgDelta(before, after) {
  const used = new Map();
  for (const [pid, seconds] of after) used.set(pid, seconds - (before.get(pid) ?? 0));
  for (const [pid, seconds] of before) if (!after.has(pid)) used.set("exited", used.get("exited") - seconds);
  let total = 0;
  let busiest = { used: 0, title: "none" };
  for (const [pid, seconds] of used) {
    total += seconds;
    if (seconds > busiest.used) busiest = { used: seconds, title: title(pid) };
  }
  return { total, busiest };
}

// ------------------------------------------------------------------ daemons

const daemons = new Set();
process.once("exit", () => {
  for (const daemon of daemons) daemon.child.kill("SIGKILL");
});
// Interrupted: exit through "exit", so the daemons are killed and the cluster stopped.
for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => process.exit(signal === "SIGINT" ? 130 : 143));

/**
 * The ingest drive sends each waitpoint hundreds of signals a minute: past the per-waitpoint budget
 * (60 a minute by default) most would be answered 429, and the figure would count refusals.
 */
const UNMETERED = { VIGIL_WAITPOINT_SIGNALS_PER_MINUTE: "100000" };

async function startDaemon(env = {}, nodeArgs = []) {
  const daemon = await new Daemon(undefined, { ...UNMETERED, ...COMMITS, ...env }, { nodeArgs }).start();
  daemons.add(daemon);
  return daemon;
}

async function stopDaemon(daemon) {
  await daemon.dispose();
  daemons.delete(daemon);
}

/** The three hosts on `url`; `profileFirst`: alpha runs with --cpu-prof into BENCH_TEAM_PROFILE. */
const team = (url, { profileFirst = false } = {}) => {
  const started = [];
  return HOSTS.reduce(
    (chain, name, i) =>
      // One after another: the first migrates, the others find the schema current.
      chain.then(async () => {
        const profile =
          profileFirst && PROFILE_DIR && i === 0 ? ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}/alpha`] : [];
        started.push(await startDaemon({ VIGIL_DATABASE_URL: url, VIGIL_HOST_NAME: name }, profile));
      }),
    Promise.resolve(),
  ).then(() => started);
};

/** `n` waitpoints armed on `daemon` (mailboxes: max_signals 1000, as ingest.js arms them), in `session`. */
async function arm(daemon, session, n, { maxSignals, inFlight = 4 } = {}) {
  await daemon.api("POST", "/api/sessions", { id: session });
  const targets = [];
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const { status, body } = await daemon.api("POST", `/api/sessions/${session}/waitpoints`, {
        label: `m${i}`,
        intent: "bench",
        ...(maxSignals ? { max_signals: maxSignals } : {}),
      });
      if (status !== 201) throw new Error(`Expected 201 arming a waitpoint, got ${status}: ${JSON.stringify(body)}`);
      targets.push({ id: body.id, secret: body.secret });
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return targets;
}

const percent = (cores) => `${(100 * cores).toFixed(cores < 0.1 ? 2 : 0)} %`;
const rotate = (list, by) => [...list.slice(by), ...list.slice(0, by)];
const signed = (ms) => (ms < 0 ? `−${fmt(-ms)}` : `+${fmt(ms)}`);

// ------------------------------------------------------------------ 1. ingest

/** Drives' rates added up: what several generators reached together. */
const sumRates = (results) => results.reduce((total, r) => total + r.perSecond, 0);

/**
 * Whether every signal a side's generators had answered 202 (warm-up and window) was stored, and
 * once: the monitors' event count went up by that many, or by up to a phase's requests in flight
 * more (sent as a phase ended and stored, their answers not counted).
 */
function storedCheck(results, stored, connections = CONNECTIONS) {
  const answered = results.reduce((n, r) => n + (r.statuses["202"] ?? 0) + r.warmupAccepted, 0);
  const ok = stored >= answered && stored <= answered + 2 * connections;
  return `${count(stored)} stored for ${count(answered)} answered 202: ${ok ? "each once" : "NOT each once"}`;
}

/** The median of numbers. */
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const perSignalUs = (r) => (1e6 * r.serverCores) / r.perSecond;

async function ingestFigures(postgres) {
  const load0 = loadavg()[0];
  const noop = await baseline("noop");
  const ceiling = await drive(noop.url, noop.targets, noop.pid).finally(() => noop.close());

  // Three generators at once, the connections split among them: first against three servers that
  // do no work (their ceiling together, on this machine), later against the three daemons.
  const split = HOSTS.map((_, i) => Math.floor(CONNECTIONS / 3) + (i < CONNECTIONS % 3 ? 1 : 0));
  const noops = await Promise.all(HOSTS.map(() => baseline("noop")));
  const ceilings3 = await Promise.all(noops.map((s, i) => drive(s.url, s.targets, s.pid, { connections: split[i] })));
  // …and three whole generators (the "team" side: each host with as many connections as one daemon).
  const ceilingsTeam = await Promise.all(noops.map((s) => drive(s.url, s.targets, s.pid))).finally(() =>
    Promise.all(noops.map((s) => s.close())),
  );
  // The three daemons on one database, armed once; they idle while one daemon is driven.
  const three = await team(await postgres.createDatabase("bench_team_ingest"), { profileFirst: true });
  const perHost = Math.ceil(WAITPOINTS / 3);
  const armed = await Promise.all(three.map((d, i) => arm(d, `ingest-${HOSTS[i]}`, perHost, { maxSignals: 1000 })));
  const all = armed.flat();

  // RUNS rounds, each of every side in a row — SQLite, PostgreSQL (each one daemon on a fresh home
  // or database), then the three daemons split and own — so that each round's ratios compare
  // sides run within a minute of each other, on a machine whose capacity drifts over minutes.
  // Shared: each generator starts a third further along the list of all waitpoints, so they
  // rarely hit one waitpoint at once (two signals in three go to another host's waitpoint). Own:
  // each generator signals its own host's waitpoints alone, as jobs that signal through the daemon
  // of the machine they run on: no two daemons write the same waitpoint's rows.
  const runs = [];
  const sides = { shared: [], own: [], team: [] };
  for (let run = 0; run < RUNS; run++) {
    const sqlite = await startDaemon();
    const sqliteTargets = await arm(sqlite, "ingest", WAITPOINTS, { maxSignals: 1000 });
    const onSqlite = await drive(`${sqlite.url}/webhook/signal`, sqliteTargets, sqlite.pid);
    await stopDaemon(sqlite);

    const database = `bench_one_${run}`;
    const profile = PROFILE_DIR && run === 0 ? ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`] : [];
    const single = await startDaemon({ VIGIL_DATABASE_URL: await postgres.createDatabase(database) }, profile);
    const singleTargets = await arm(single, "ingest", WAITPOINTS, { maxSignals: 1000 });
    if (STATEMENTS && run === 0) await postgres.statementsReset();
    const pg0 = postgres.cpu();
    const t0 = performance.now();
    const onPostgres = await drive(`${single.url}/webhook/signal`, singleTargets, single.pid);
    if (STATEMENTS && run === 0) {
      console.log(
        `run 1's statements on PostgreSQL (pg_stat_statements), ${count(onPostgres.statuses["202"] ?? 0)} answered 202:`,
      );
      console.table(await postgres.statements(database));
      console.log(postgres.slowestPlan());
    }
    const pgCores = pgDelta(pg0, postgres.cpu()).total / ((performance.now() - t0) / 1000);
    await stopDaemon(single);
    await postgres.dropDatabase(database);
    runs.push({ onSqlite, onPostgres, pgCores });

    for (const side of ["shared", "own", "team"]) {
      if (STATEMENTS && run === 0) await postgres.statementsReset();
      const stored0 = await postgres.storedEvents("bench_team_ingest");
      const pg1 = postgres.cpu();
      const t1 = performance.now();
      const results = await Promise.all(
        three.map((d, i) =>
          drive(`${d.url}/webhook/signal`, side === "shared" ? rotate(all, (i * all.length) / 3) : armed[i], d.pid, {
            connections: side === "team" ? CONNECTIONS : split[i],
          }),
        ),
      );
      const pgCores = pgDelta(pg1, postgres.cpu()).total / ((performance.now() - t1) / 1000);
      const stored = (await postgres.storedEvents("bench_team_ingest")) - stored0;
      if (STATEMENTS && run === 0) {
        console.log(`run 1's statements of the three daemons, ${side} side (pg_stat_statements):`);
        console.table(await postgres.statements("bench_team_ingest"));
      }
      const total = sumRates(results);
      sides[side].push({
        results,
        pgCores,
        total,
        stored,
        one: onPostgres.perSecond,
        // CPU a signal, the three daemons together and PostgreSQL, beside one daemon's of the same round.
        daemonUs: (1e6 * results.reduce((sum, r) => sum + r.serverCores, 0)) / total,
        pgUs: (1e6 * pgCores) / total,
        oneDaemonUs: perSignalUs(onPostgres),
        onePgUs: (1e6 * runs[run].pgCores) / onPostgres.perSecond,
      });
    }
  }
  const onPostgres = runs.map((r) => r.onPostgres).sort((a, b) => a.perSecond - b.perSecond)[Math.floor(RUNS / 2)];
  const onSqlite = runs.map((r) => r.onSqlite).sort((a, b) => a.perSecond - b.perSecond)[Math.floor(RUNS / 2)];
  await Promise.all(three.map(stopDaemon));
  await postgres.dropDatabase("bench_team_ingest");
  const load1 = loadavg()[0];

  const ceiling3 = sumRates(ceilings3);
  console.log(
    `ingest · ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up + ${SECONDS} s per side, progress signals to ${WAITPOINTS} waitpoints round robin (bench/ingest.js's client) · PostgreSQL ${PG_FAST ? "fsync off (BENCH_TEAM_PG_FAST)" : "durable (fsync, synchronous_commit on)"} · load average ${load0.toFixed(1)} → ${load1.toFixed(1)}`,
  );
  console.log(line("node:http, no work", ceiling));
  for (const [i, r] of runs.entries()) {
    console.log(line(`run ${i + 1} vigil on SQLite`, r.onSqlite));
    console.log(
      `${line(`run ${i + 1} vigil on PostgreSQL`, r.onPostgres)} · postgres CPU ${percent(r.pgCores)} (whole drive)`,
    );
  }
  const med = (pick) => median(runs.map(pick));
  const ratio = med((r) => r.onPostgres.perSecond) / med((r) => r.onSqlite.perSecond);
  const p99 = med((r) => r.onPostgres.p99);
  console.log(
    `one daemon, medians of ${RUNS} runs: SQLite ${count(med((r) => r.onSqlite.perSecond))} signals/s (p50 ${fmt(med((r) => r.onSqlite.p50))}, p99 ${fmt(med((r) => r.onSqlite.p99))}, ${med((r) => perSignalUs(r.onSqlite)).toFixed(0)} µs daemon CPU a signal) · ` +
      `PostgreSQL ${count(med((r) => r.onPostgres.perSecond))} signals/s (p50 ${fmt(med((r) => r.onPostgres.p50))}, p99 ${fmt(p99)}, ${med((r) => perSignalUs(r.onPostgres)).toFixed(0)} µs daemon CPU a signal, ` +
      `${((1e6 * med((r) => r.pgCores)) / med((r) => r.onPostgres.perSecond)).toFixed(0)} µs PostgreSQL CPU a signal) · ` +
      `PostgreSQL / SQLite = ${ratio.toFixed(2)}× · goal (#41: ≥ ${GOAL.ingestRatio}×, p99 < ${GOAL.ingestP99Ms} ms): ${ratio >= GOAL.ingestRatio && p99 < GOAL.ingestP99Ms ? "met" : "NOT met"}`,
  );
  for (const [i, r] of ceilings3.entries()) console.log(line(`no work ${i + 1}/3 (${split[i]} c.)`, r));
  const onePg = med((r) => r.onPostgres.perSecond);
  for (const [side, what] of [
    ["shared", `${all.length} waitpoints, a third on each host; 2 signals in 3 for another host's`],
    ["own", "each signalled for its own host's waitpoints"],
    [
      "team",
      `each signalled for its own host's waitpoints by ${CONNECTIONS} connections of its own, three times one daemon's load`,
    ],
  ]) {
    for (const [run, { results, pgCores, total, stored }] of sides[side].entries()) {
      for (const [i, r] of results.entries())
        console.log(
          line(`run ${run + 1} ${side}: vigil ${HOSTS[i]} (${side === "team" ? CONNECTIONS : split[i]} c.)`, r),
        );
      console.log(
        `run ${run + 1} ${side}: ${count(total)} signals/s together · postgres CPU ${percent(pgCores)} · ${storedCheck(results, stored, side === "team" ? 3 * CONNECTIONS : CONNECTIONS)}`,
      );
    }
    const together = median(sides[side].map((s) => s.total));
    const worstP99 = median(sides[side].map((s) => Math.max(...s.results.map((r) => r.p99))));
    const rounds = sides[side].map((s) => s.total / s.one);
    const perRound = median(rounds);
    const cpu = (key) => median(sides[side].map((s) => s[key])).toFixed(0);
    const pgRatio = median(sides[side].map((s) => s.pgUs / s.onePgUs));
    console.log(
      `three daemons on one database (${what}), medians of ${RUNS} runs: ${count(together)} signals/s together (worst host's p99 ${fmt(worstP99)}) · ` +
        `= ${(together / onePg).toFixed(2)}× one daemon on PostgreSQL; each round's three ÷ one ${rounds.map((r) => `${r.toFixed(2)}×`).join(", ")} (median ${perRound.toFixed(2)}×) · ` +
        `goal (#41: three no slower than one): ${perRound >= 1 ? "met" : "NOT met"} · ` +
        `CPU a signal: the daemons ${cpu("daemonUs")} µs (one daemon ${cpu("oneDaemonUs")} µs), PostgreSQL ${cpu("pgUs")} µs (with one daemon ${cpu("onePgUs")} µs; ` +
        `each round's three ÷ one ${sides[side].map((s) => `${(s.pgUs / s.onePgUs).toFixed(2)}×`).join(", ")}, median ${pgRatio.toFixed(2)}×: ` +
        `the database's own cost a signal with three hosts ${pgRatio <= 1.1 ? "within 10 % of" : "more than 10 % above"} one's)`,
    );
  }
  const total3 = Math.max(...[...sides.shared, ...sides.own].map((s) => s.total));
  const ceilingTeam = sumRates(ceilingsTeam);
  const totalTeam = Math.max(...sides.team.map((s) => s.total));
  const within = (r, top) => r.perSecond <= (1 - HEADROOM) * top;
  const clientOk = runs.every((r) => within(r.onSqlite, ceiling.perSecond) && within(r.onPostgres, ceiling.perSecond));
  console.log(
    `client check: one generator's ceiling ${count(ceiling.perSecond)}/s, SQLite reached ${((100 * onSqlite.perSecond) / ceiling.perSecond).toFixed(0)} %, PostgreSQL ${((100 * onPostgres.perSecond) / ceiling.perSecond).toFixed(0)} %; ` +
      `three generators' ceiling ${count(ceiling3)}/s, the three daemons at most ${((100 * total3) / ceiling3).toFixed(0)} %; ` +
      `three whole generators' ceiling ${count(ceilingTeam)}/s, the team side at most ${((100 * totalTeam) / ceilingTeam).toFixed(0)} % → ` +
      (clientOk && total3 <= (1 - HEADROOM) * ceiling3 && totalTeam <= (1 - HEADROOM) * ceilingTeam
        ? `all ≥ ${100 * HEADROOM} % below: the client was not the bottleneck`
        : `a side came within ${100 * HEADROOM} % of its ceiling: the client (or the machine) may be what was measured`),
  );
}

// ------------------------------------------------------------------ 2. cross-host wake latency

/**
 * One-shot waitpoints armed on `owner`, each fresh, signalled alternately through `other` and
 * through `owner` itself: from the 202 (and from the send) to `owner`'s long-poll answering.
 */
async function latencyFigures(owner, other) {
  const session = "latency";
  await owner.api("POST", "/api/sessions", { id: session });
  const paths = {
    cross: { client: poster(`${other.url}/webhook/signal`, { connections: 1 }), fromAccepted: [], fromSent: [] },
    local: { client: poster(`${owner.url}/webhook/signal`, { connections: 1 }), fromAccepted: [], fromSent: [] },
  };
  let early = 0;
  let missed = 0;
  const load0 = loadavg()[0];
  for (let i = 0; i < 2 * SIGNALS; i++) {
    const path = i % 2 === 0 ? paths.cross : paths.local;
    const made = await owner.api("POST", `/api/sessions/${session}/waitpoints`, {
      label: `one-shot ${i}`,
      intent: "bench",
    });
    const answered = owner
      .api("GET", `/api/sessions/${session}/wakes/ready?wait=25`)
      .then((reply) => ({ reply, at: performance.now() }));
    await sleep(5); // the long-poll is waiting (if not, it answers at once and is counted below)
    const sent = performance.now();
    const accepted = await path.client.post({ id: made.body.id, secret: made.body.secret, status: "ok" });
    const acceptedAt = performance.now();
    const { reply, at } = await answered;
    if (accepted.status !== 202 || reply.body?.ready !== 1) missed++;
    else if (at < sent) early++;
    else {
      path.fromSent.push(at - sent);
      path.fromAccepted.push(Math.max(0, at - acceptedAt));
    }
    await owner.api("POST", `/api/sessions/${session}/wakes/claim`); // ready goes back to 0
  }
  for (const path of Object.values(paths)) path.client.close();
  const stats = (values) =>
    `p50 ${fmt(quantile(values, 0.5))} · p90 ${fmt(quantile(values, 0.9))} · p99 ${fmt(quantile(values, 0.99))} · max ${fmt(quantile(values, 1))} · n=${values.length}`;
  const { cross, local } = paths;
  const p50 = quantile(cross.fromAccepted, 0.5);
  const p99 = quantile(cross.fromAccepted, 0.99);
  console.log(
    `wake latency · one-shot waitpoints armed on ${HOSTS[0]}, each fresh, ${SIGNALS} signalled through ${HOSTS[1]} and ${SIGNALS} through ${HOSTS[0]}, alternating · load average ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)}`,
  );
  console.log(`${HOSTS[1]}'s 202 → ${HOSTS[0]}'s long-poll answers (cross-host): ${stats(cross.fromAccepted)}`);
  console.log(`${HOSTS[0]}'s 202 → ${HOSTS[0]}'s long-poll answers (same host):  ${stats(local.fromAccepted)}`);
  console.log(`signal sent → answered, cross-host: ${stats(cross.fromSent)}`);
  console.log(`signal sent → answered, same host:  ${stats(local.fromSent)}`);
  console.log(
    `cross-host − same host: p50 ${signed(p50 - quantile(local.fromAccepted, 0.5))}, p99 ${signed(p99 - quantile(local.fromAccepted, 0.99))} · ` +
      `goal (#27: p50 < ${GOAL.p50Ms} ms, p99 < ${GOAL.p99Ms} ms): ${p50 < GOAL.p50Ms && p99 < GOAL.p99Ms ? "met" : "NOT met"}` +
      ` · (0 from the 202: the long-poll answered before the 202 reached the client) · left out: ${early} answered before the send, ${missed} not 202/ready`,
  );
}

// ------------------------------------------------------------------ 3. idle

async function idleFigures(three, postgres) {
  const window = async (seconds) => {
    const logged0 = postgres.logged();
    const before = three.map((d) => cpuSeconds(d.pid, true));
    const pg0 = postgres.cpu();
    const t0 = performance.now();
    await sleep(seconds * 1000);
    const wall = (performance.now() - t0) / 1000;
    const pgUsed = pgDelta(pg0, postgres.cpu());
    return {
      connections: postgres.logged().connections - logged0.connections,
      autovacuums: postgres.logged().autovacuums - logged0.autovacuums,
      daemons: three.map((d, i) => (cpuSeconds(d.pid, true) - before[i]) / wall),
      pg: pgUsed.total / wall,
      pgBusiest: { cores: pgUsed.busiest.used / wall, title: pgUsed.busiest.title },
      processes: postgres.pids().length,
    };
  };
  const show = (label, r) =>
    `${label}: ${HOSTS.map((name, i) => `${name} ${percent(r.daemons[i])}`).join(", ")} · postgres ${percent(r.pg)} (${r.processes} processes; busiest ${percent(r.pgBusiest.cores)}, ${r.pgBusiest.title}) of a core · meanwhile ${r.connections} connections opened, ${r.autovacuums} autovacuum/analyze runs`;

  await sleep(12_000); // the connections of what came before close (see below)
  const quiet = await window(IDLE_SECONDS / 4);
  const t0 = performance.now();
  const perHost = HOSTS.map((_, i) => Math.floor(IDLE_WAITPOINTS / 3) + (i < IDLE_WAITPOINTS % 3 ? 1 : 0));
  await Promise.all(
    three.map(async (d, i) => {
      for (let armed = 0, s = 0; armed < perHost[i]; s++) {
        const n = Math.min(200, perHost[i] - armed);
        await arm(d, `idle-${HOSTS[i]}-${s}`, n, { inFlight: 16 });
        armed += n;
      }
    }),
  );
  const armSeconds = (performance.now() - t0) / 1000;
  // Settle: the daemons' pools close connections idle for 10 s (pg's default), and a backend's exit
  // costs CPU: the connections arming opened are gone before the window starts.
  await sleep(15_000);
  const load0 = loadavg()[0];
  const armedWindow = await window(IDLE_SECONDS);
  console.log(
    `idle · ${IDLE_WAITPOINTS.toLocaleString("en-US")} waitpoints armed over three hosts (${perHost.join(" + ")}, 200 a session; armed through the API in ${armSeconds.toFixed(1)} s, ${count(IDLE_WAITPOINTS / armSeconds)}/s) · load average ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)}`,
  );
  console.log(show(`nothing armed, ${IDLE_SECONDS / 4} s`, quiet));
  console.log(show(`${IDLE_WAITPOINTS.toLocaleString("en-US")} armed, ${IDLE_SECONDS} s`, armedWindow));
  const met = [...armedWindow.daemons, armedWindow.pg].every((cores) => cores < GOAL.idleCore);
  console.log(
    `goal (#27: < ${percent(GOAL.idleCore)} of a core each, PostgreSQL's processes together): ${met ? "met" : "NOT met"}`,
  );
}

// ------------------------------------------------------------------ 4. idle per host, 5 and 20 hosts

/**
 * `n` daemons, each its own home and host name, on one fresh database, HOST_WAITPOINTS armed on
 * each, then idle for HOSTS_IDLE_SECONDS: the daemons' CPU per host (median, mean and the busiest),
 * PostgreSQL's, and the transactions the database ran, over the window. With heartbeats at O(1)
 * per host (#41) the per-host figures are flat from 5 to 20 hosts. An idle daemon's CPU is a few
 * ms a second, and one with a garbage collection in the window reads about twice one without, so
 * the median is the steadier figure; the transactions a host asks for are the exact one.
 */
async function hostsIdle(postgres, n) {
  const database = `bench_hosts_${n}`;
  const url = await postgres.createDatabase(database);
  const daemons = [];
  for (let i = 0; i < n; i++) daemons.push(await startDaemon({ VIGIL_DATABASE_URL: url, VIGIL_HOST_NAME: `host${i}` }));
  const t0 = performance.now();
  await Promise.all(daemons.map((d, i) => arm(d, `idle-host${i}`, HOST_WAITPOINTS, { inFlight: 2 })));
  const armSeconds = (performance.now() - t0) / 1000;
  await sleep(15_000); // arming's connections close (pg's 10 s idle timeout) before the window
  const load0 = loadavg()[0];
  const before = daemons.map((d) => cpuSeconds(d.pid, true));
  const pg0 = postgres.cpu();
  const logged0 = postgres.logged();
  const tx0 = await postgres.transactions(database);
  const w0 = performance.now();
  await sleep(HOSTS_IDLE_SECONDS * 1000);
  const wall = (performance.now() - w0) / 1000;
  // Each counts its own query too: one a reading, taken off.
  const transactions = (await postgres.transactions(database)) - tx0 - 1;
  const perHost = daemons.map((d, i) => (cpuSeconds(d.pid, true) - before[i]) / wall);
  const pg = pgDelta(pg0, postgres.cpu()).total / wall;
  const connections = postgres.logged().connections - logged0.connections;
  await Promise.all(daemons.map(stopDaemon));
  await postgres.dropDatabase(database);
  const mean = perHost.reduce((a, b) => a + b, 0) / n;
  return {
    n,
    mean,
    median: median(perHost),
    max: Math.max(...perHost),
    txPerHost: transactions / wall / n,
    pg,
    pgPerHost: pg / n,
    armSeconds,
    connections,
    load0,
    load1: loadavg()[0],
  };
}

async function hostsIdleFigures(postgres) {
  const results = [];
  for (const n of HOST_COUNTS) results.push(await hostsIdle(postgres, n));
  const ms = (cores) => `${(1000 * cores).toFixed(2)} ms/s`;
  console.log(
    `idle per host · ${HOST_COUNTS.join(" and ")} daemons on one database, each its own home, ${HOST_WAITPOINTS} waitpoints armed on each, ${HOSTS_IDLE_SECONDS} s measured (CPU in ms per second = thousandths of a core)`,
  );
  for (const r of results) {
    console.log(
      `${String(r.n).padStart(2)} hosts: daemon CPU per host ${ms(r.median)} (median; mean ${ms(r.mean)}, busiest ${ms(r.max)}) · ` +
        `PostgreSQL ${ms(r.pg)} in all, ${ms(r.pgPerHost)} per host · ${r.txPerHost.toFixed(2)} transactions a second per host · ` +
        `${r.connections} connections opened meanwhile · armed in ${r.armSeconds.toFixed(1)} s · load average ${r.load0.toFixed(1)} → ${r.load1.toFixed(1)}`,
    );
  }
  if (results.length >= 2) {
    const [first, last] = [results[0], results.at(-1)];
    console.log(
      `${last.n} hosts ÷ ${first.n} hosts, per host: transactions ${(last.txPerHost / first.txPerHost).toFixed(2)}×, daemon CPU ${(last.median / first.median).toFixed(2)}× (median; mean ${(last.mean / first.mean).toFixed(2)}×), PostgreSQL CPU ${(last.pgPerHost / first.pgPerHost).toFixed(2)}× (flat = 1.00×)`,
    );
  }
}

// ------------------------------------------------------------------ run

export async function run() {
  const postgres = BenchPostgres.start();
  try {
    if (PARTS.has("ingest")) {
      await ingestFigures(postgres);
      console.log();
    }
    if (PARTS.has("latency") || PARTS.has("idle")) {
      const three = await team(await postgres.createDatabase("bench_team"));
      if (PARTS.has("latency")) await latencyFigures(three[0], three[1]);
      if (PARTS.has("idle") && IDLE_WAITPOINTS > 0) {
        console.log();
        await idleFigures(three, postgres);
      }
      await Promise.all(three.map(stopDaemon));
      console.log();
    }
    if (PARTS.has("hosts") && HOST_COUNTS.length > 0) await hostsIdleFigures(postgres);
  } finally {
    await Promise.all([...daemons].map(stopDaemon));
    postgres.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
