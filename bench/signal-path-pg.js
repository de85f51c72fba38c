// The signal path on PostgreSQL without HTTP (#41), in this process: the route's group commit for
// batches of progress signals to 200 waitpoints (round robin), through the real Waitpoints service
// and the PostgreSQL engine, on a throwaway cluster (bench/team.js's, durable). Per signal it prints
// the daemon's CPU (this process) and PostgreSQL's (its processes, from /proc), and per batch the
// statements sent (counted on the pool's connections) — CPU time, not wall time, so a busy machine
// moves it little. Then the statements PostgreSQL spent its time on (pg_stat_statements) and the
// slowest plan (auto_explain, over 3 ms).
// `node bench/signal-path-pg.js`; BENCH_PATH_BATCH (32), BENCH_PATH_IN_FLIGHT (1: batches at once),
// BENCH_PATH_SIGNALS (10,000 measured, after as many to warm up), BENCH_PATH_STATEMENTS=0 (without
// pg_stat_statements and auto_explain, whose log_analyze times every plan node of every statement:
// PostgreSQL's CPU as a production server spends it, and no table of statements).
import { join } from "node:path";
import { armWaitpoints, ROOT } from "./lib.js";
import { BenchPostgres } from "./team.js";

const BATCH = Number(process.env.BENCH_PATH_BATCH ?? 32);
const IN_FLIGHT = Number(process.env.BENCH_PATH_IN_FLIGHT ?? 1);
const SIGNALS = Number(process.env.BENCH_PATH_SIGNALS ?? 10_000);
const WAITPOINTS = 200;

const load = (path) => import(join(ROOT, "dist/native-host/src", path));
const { wireServices } = await load("daemon.js");
const { silentLogger } = await load("base/log.js");
const { DEFAULT_SETTINGS } = await load("base/config.js");
const { createPool } = await load("store/pg/connection.js");
const { migratePg } = await load("store/pg/migrate.js");
const { PgEngine } = await load("store/pg/store.js");
const { VaultFile } = await load("store/vault-file.js");

/** The pool, with every statement sent through it or on a connection it hands out counted. */
function countingPool(pool) {
  const counted = { statements: 0 };
  /** `target` with its `query` counted and `more` (name → value) in place of its own. */
  const counting = (target, more = {}) =>
    new Proxy(target, {
      get(inner, prop) {
        if (prop in more) return more[prop];
        if (prop === "query")
          return (...args) => {
            counted.statements++;
            return inner.query(...args);
          };
        const value = Reflect.get(inner, prop);
        return typeof value === "function" ? value.bind(inner) : value;
      },
    });
  return { pool: counting(pool, { connect: async () => counting(await pool.connect()) }), counted };
}

const STATEMENTS = process.env.BENCH_PATH_STATEMENTS !== "0";

const postgres = BenchPostgres.start({ statements: STATEMENTS });
try {
  const url = await postgres.createDatabase("signal_path");
  const raw = createPool({ url, applicationName: "vigil/bench", max: 10 });
  const client = await raw.connect();
  await migratePg(client);
  client.release();
  const { pool, counted } = countingPool(raw);
  const store = new PgEngine(pool, new VaultFile(null));
  const settings = { ...DEFAULT_SETTINGS, waitpointSignalsPerMinute: 100_000 };
  const services = await wireServices({ store, log: silentLogger, settings });
  await services.delivery.stop();
  const { engine, waitpoints } = services;
  const targets = await armWaitpoints(engine, waitpoints, "path", WAITPOINTS);
  let n = 0;
  const batch = () =>
    Promise.all(
      Array.from({ length: BATCH }, () => {
        const t = targets[n % WAITPOINTS];
        const i = n++;
        return waitpoints.signalBatched({
          id: t.id,
          secret: t.secret,
          status: "progress",
          message: `step ${i}`,
          key: `k${i}`,
        });
      }),
    );
  const send = async (count) => {
    let left = Math.ceil(count / BATCH);
    const lane = async () => {
      while (left-- > 0) await batch();
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  };
  await send(SIGNALS); // every event log past its cap, progress rows at their steady count
  if (STATEMENTS) await postgres.statementsReset();
  const statements0 = counted.statements;
  const pg0 = [...postgres.cpu().values()].reduce((a, b) => a + b, 0);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await send(SIGNALS);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const pgSeconds = [...postgres.cpu().values()].reduce((a, b) => a + b, 0) - pg0;
  const batches = Math.ceil(SIGNALS / BATCH);
  console.log(
    `signal path on PostgreSQL, batches of ${BATCH}, ${IN_FLIGHT} at once, ${SIGNALS} signals: ` +
      `${((counted.statements - statements0) / batches).toFixed(1)} statements a batch · ` +
      `daemon CPU ${((cpu.user + cpu.system) / SIGNALS).toFixed(1)} µs a signal · PostgreSQL CPU ${((1e6 * pgSeconds) / SIGNALS).toFixed(1)} µs a signal · ` +
      `${Math.round(SIGNALS / seconds)} signals/s (wall: the machine's load moves it)`,
  );
  if (STATEMENTS) {
    console.table(await postgres.statements("signal_path"));
    console.log(postgres.slowestPlan());
  }
  await engine.stop();
  await raw.end();
} finally {
  postgres.stop();
}
process.exit(0);
