// The signal path without HTTP, in this process: what the route's group commit does for a batch of
// progress signals to 200 waitpoints (round robin), through the real Waitpoints service, store and
// WAL checkpointer. Prints per signal the WAL frames written (counted with no checkpoint meanwhile:
// exact, whatever else the machine does) and the CPU (the least of ROUNDS rounds: a busy machine
// only ever adds). With checkout folders as arguments (each built, e.g. /work/main) it measures
// each of them too, alternating, for a before/after on the same machine at the same time.
// `node bench/signal-path.js [CHECKOUT …]`; BENCH_PATH_BATCH (32), BENCH_PATH_ROUNDS (3).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { armWaitpoints, inProcess, ROOT } from "./lib.js";

const BATCH = Number(process.env.BENCH_PATH_BATCH ?? 32);
const ROUNDS = Number(process.env.BENCH_PATH_ROUNDS ?? 3);
const WAITPOINTS = 200;
const FRAME = 4096 + 24;

/** One measurement of `checkout` in this process: {frames, cpuUs} per signal. */
async function measure(checkout) {
  const load = (path) => import(join(checkout, "dist/native-host/src", path));
  const { ensureHome } = await load("base/home.js");
  const { Checkpointer } = await load("store/checkpointer.js");
  const home = mkdtempSync(join(tmpdir(), "vigil-bench-path-"));
  const paths = ensureHome(home);
  const { sqlite: store, services, close } = await inProcess(checkout, paths.db);
  const checkpointer = new Checkpointer(store.db, { onError: (message) => console.error(message) });
  store.afterCommit = () => checkpointer.noteWrite();
  const { engine, waitpoints } = services;
  const targets = await armWaitpoints(engine, waitpoints, "path", WAITPOINTS);
  let n = 0;
  let walls = null; // each batch's wall time (ms), while measured
  const send = async (count) => {
    for (let i = 0; i < count; i += BATCH) {
      const t0 = performance.now();
      const batch = [];
      for (let j = 0; j < BATCH; j++, n++) {
        const t = targets[n % WAITPOINTS];
        batch.push(
          waitpoints.signalBatched({
            id: t.id,
            secret: t.secret,
            status: "progress",
            message: `step ${n}`,
            key: `k${n}`,
          }),
        );
      }
      await Promise.all(batch);
      walls?.push(performance.now() - t0);
    }
  };
  await send(40_000); // every event log past its cap, the tables at their steady size
  walls = [];
  const cpu0 = process.cpuUsage();
  await send(40_000);
  const cpu = process.cpuUsage(cpu0);
  const sorted = walls.sort((a, b) => a - b);
  const stalls = {
    p99: sorted[Math.floor(sorted.length * 0.99)],
    max: sorted.at(-1),
    over5: sorted.filter((w) => w > 5).length,
  };
  walls = null;
  // Frames: the log emptied, no checkpoint while 10,000 more go in.
  await checkpointer.stop();
  store.afterCommit = null;
  store.db.pragma("wal_checkpoint(TRUNCATE)");
  store.db.pragma("wal_autocheckpoint = 0");
  await send(10_000);
  const frames = statSync(`${paths.db}-wal`).size / FRAME / 10_000;
  await close();
  rmSync(home, { recursive: true, force: true });
  return { frames, cpuUs: (cpu.user + cpu.system) / 40_000, stalls, batches: sorted.length };
}

if (process.argv[2] === "--child") {
  process.stdout.write(`${JSON.stringify(await measure(process.argv[3]))}\n`);
  process.exit(0); // the engine's and delivery's handles are not all closed by stop()
} else {
  const checkouts = [ROOT, ...process.argv.slice(2)];
  const results = new Map(checkouts.map((c) => [c, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const checkout of checkouts) {
      // A fresh process each time: one checkout's modules and heap do not touch the other's.
      const out = execFileSync(process.execPath, [import.meta.filename, "--child", checkout], { encoding: "utf8" });
      results.get(checkout).push(JSON.parse(out));
    }
  }
  for (const [checkout, runs] of results) {
    const cpu = runs.map((r) => r.cpuUs);
    console.log(
      `signal path (${checkout === ROOT ? "this checkout" : checkout}), batches of ${BATCH}: ${runs[0].frames.toFixed(2)} WAL frames a signal, ` +
        `CPU ${Math.min(...cpu).toFixed(1)} µs a signal (least of ${ROUNDS}; all: ${cpu.map((c) => c.toFixed(1)).join(", ")})`,
    );
    // A batch's wall time holds its commit: a checkpoint run inside one, on the event loop, shows here.
    console.log(
      `  batch wall time over ${runs[0].batches} batches, per round: ` +
        runs
          .map(
            (r) => `p99 ${r.stalls.p99.toFixed(1)} ms, max ${r.stalls.max.toFixed(1)} ms, ${r.stalls.over5} over 5 ms`,
          )
          .join(" · "),
    );
  }
}
