// Issue #19's figure: N command waits (`test -f` on a file that never appears, every 5 s, 4 per
// session) checked by the daemon for SECONDS, against N shell loops `until test -f …; do sleep 5;
// done` in the same run (one after the other, so they do not share the CPU); medians of RUNS runs.
// CPU is counted exactly, per side, by a cgroup (bench/lib.js CpuGroup): the daemon joins Vigil's
// group as it is spawned, so vigil-spawner and every check process are counted with it; each loop's
// `sh` joins the loops' group as it is spawned, so every `sleep` is counted with it. Without a
// writable cgroup it falls back to whole-machine CPU minus an idle baseline, and says so.
// Lag is the status route's `checkLag` (how late each check started against its due time, over the
// last 1,000 checks), read every 1,000 checks' worth of time; processes are the group's, sampled each
// second; checks done are counted from the daemon's check log and from the loops' new `sleep`s.
// `VIGIL_SPAWNER=off node bench/command-waits.js` measures the fallback (checks spawned from the daemon).
// measureVigil/measureLoops are reused by command-scaling.js.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import {
  CpuGroup,
  cpuAccounting,
  cpuSeconds,
  Daemon,
  fmt,
  machineIdleCores,
  memoryMb,
  processAgeSeconds,
  processName,
  quantile,
  seed,
  sleep,
} from "./lib.js";

const SECONDS = Number(process.env.BENCH_CW_SECONDS ?? 60);
const WAITS = Number(process.env.BENCH_CW_WAITS ?? 1000);
const RUNS = Number(process.env.BENCH_CW_RUNS ?? 3);
const INTERVAL = 5;
const MISSING = "/nonexistent/vigil-bench-flag";
const CHECK_LOG_CAP = 100; // checks kept per monitor (store/checks.ts)

export const median = (values) => quantile(values, 0.5);
export const loopCommand = (intervalSeconds) => `until test -f ${MISSING}; do sleep ${intervalSeconds}; done`;

/** Samples every second until `seconds` have passed; returns the wall time in seconds. */
async function measureFor(seconds, each) {
  const t0 = performance.now();
  for (;;) {
    const left = seconds * 1000 - (performance.now() - t0);
    if (left <= 0) break;
    await sleep(Math.min(1000, left));
    await each(performance.now() - t0);
  }
  return (performance.now() - t0) / 1000;
}

/** Checks the daemon recorded between two times (its check log keeps the last 100 per monitor). */
function checksDone(home, since, until) {
  const db = new Database(join(home, "vigil.db"), { readonly: true, fileMustExist: true });
  try {
    return db.prepare("SELECT count(*) AS n FROM checks WHERE at >= ? AND at < ?").get(since, until).n;
  } finally {
    db.close();
  }
}

/**
 * `waits` command waits at `intervalSeconds`, armed before the daemon starts; after `warmupSeconds`
 * (the first round starts as fast as the waits were created, later ones are spread over the
 * interval), `seconds` of measurement. CPU in cores (1 = one core busy).
 */
export async function measureVigil({ waits, intervalSeconds = INTERVAL, seconds, warmupSeconds }) {
  if (warmupSeconds + seconds > 540) {
    throw new Error(`warm-up + measurement must stay under 540 s: the waits are seeded with the 600 s maximum timeout`);
  }
  const idle = cpuAccounting().exact ? 0 : await machineIdleCores();
  const daemon = new Daemon();
  await seed(daemon.home, {
    waitpoints: 0,
    timeMonitors: 0,
    commandWaits: waits,
    command: `test -f ${MISSING}`,
    intervalSeconds,
  });
  const group = new CpuGroup("vigil");
  try {
    const starting = daemon.start(); // spawns synchronously, then waits for daemon.json
    group.add(daemon.pid);
    await starting;
    await sleep(warmupSeconds * 1000);
    const helper = group.pids().find((pid) => processName(pid) === "vigil-spawner");
    const own = () => [cpuSeconds(daemon.pid), helper ? cpuSeconds(helper) : 0];
    const [daemon0, helper0] = own();
    const cpu0 = group.seconds();
    const since = Date.now();
    const processes = [];
    const lags = [];
    const lagEveryMs = Math.max(1000, (1000 * 1000 * intervalSeconds) / waits); // 1,000 checks' worth
    let lastLag = 0;
    const readLag = async () => (await daemon.api("GET", "/api/status")).body.checkLag;
    const wall = await measureFor(seconds, async (elapsed) => {
      processes.push(group.pids().length);
      if (elapsed - lastLag >= lagEveryMs - 100) {
        lags.push(await readLag());
        lastLag = elapsed;
      }
    });
    const cpu = (group.seconds() - cpu0) / wall - idle;
    const [daemon1, helper1] = own();
    if (lags.length === 0) lags.push(await readLag());
    const checks = seconds / intervalSeconds < CHECK_LOG_CAP ? checksDone(daemon.home, since, Date.now()) : null;
    const resident = group.pids().filter((pid) => processAgeSeconds(pid) >= 1); // not the checks in flight
    const memory = memoryMb(resident);
    return {
      cpu,
      daemonCpu: (daemon1 - daemon0) / wall,
      spawnerCpu: (helper1 - helper0) / wall,
      lagP50Ms: median(lags.map((l) => l.p50Ms)),
      lagP99Ms: median(lags.map((l) => l.p99Ms)),
      lagWorstP99Ms: Math.max(...lags.map((l) => l.p99Ms)),
      lagReadings: lags.length,
      checksPerSecond: checks === null ? null : checks / wall,
      rssMb: memory.rss,
      pssMb: memory.pss,
      processes: median(processes),
      spawner: Boolean(helper),
      wall,
    };
  } finally {
    await daemon.dispose();
    await group.close();
  }
}

/** Kernel tasks that can still be created: each loop holds two (its `sh` and its `sleep`). */
function pidHeadroom() {
  const pidMax = Number(readFileSync("/proc/sys/kernel/pid_max", "utf8"));
  const tasks = Number(readFileSync("/proc/loadavg", "utf8").split(" ")[3].split("/")[1]);
  return pidMax - tasks;
}

/** `waits` shell loops at `intervalSeconds`, each spawned and moved into the loops' group at once. */
export async function measureLoops({ waits, intervalSeconds = INTERVAL, seconds, warmupSeconds }) {
  const headroom = pidHeadroom();
  if (headroom < 2 * waits + 2000) {
    // A loop whose `sleep` cannot fork spins: never start one without room for every task.
    throw new Error(`${waits} loops need ${2 * waits} tasks (each sh and its sleep); only ${headroom} left`);
  }
  const idle = cpuAccounting().exact ? 0 : await machineIdleCores();
  const group = new CpuGroup("loops");
  try {
    for (let i = 0; i < waits; i++) {
      const child = spawn("sh", ["-c", loopCommand(intervalSeconds)], { stdio: "ignore" });
      child.on("error", () => {}); // a failed spawn has no pid: add() throws
      group.add(child.pid);
    }
    await sleep(warmupSeconds * 1000);
    const cpu0 = group.seconds();
    let previous = new Set(group.pids());
    let started = 0; // processes that appeared since the sample before: the `sleep`s, one per check
    const processes = [];
    const wall = await measureFor(seconds, () => {
      const now = group.pids();
      processes.push(now.length);
      for (const pid of now) if (!previous.has(pid)) started++;
      previous = new Set(now);
    });
    const cpu = (group.seconds() - cpu0) / wall - idle;
    const memory = memoryMb(group.pids());
    return {
      cpu,
      checksPerSecond: started / wall,
      rssMb: memory.rss,
      pssMb: memory.pss,
      processes: median(processes),
      wall,
    };
  } finally {
    await group.close();
  }
}

const pct = (cores) => `${(100 * cores).toFixed(1)} %`;
const mb = (value) => `${value.toFixed(0)} MB`;
const rate = (value) => (value === null ? "?" : `${value.toFixed(0)}/s`);

export async function run() {
  const how = cpuAccounting();
  const vigil = [];
  const loops = [];
  const options = { waits: WAITS, intervalSeconds: INTERVAL, seconds: SECONDS, warmupSeconds: INTERVAL + 5 };
  for (let i = 0; i < RUNS; i++) {
    const load = loadavg()[0];
    vigil.push(await measureVigil(options));
    loops.push(await measureLoops(options));
    const [v, l] = [vigil.at(-1), loops.at(-1)];
    console.log(
      `  run ${i + 1}/${RUNS} (load average ${load.toFixed(2)} before): vigil ${pct(v.cpu)} vs loops ${pct(l.cpu)} → ${(v.cpu / l.cpu).toFixed(2)}; lag p50 ${fmt(v.lagP50Ms)} · p99 ${fmt(v.lagP99Ms)}`,
    );
  }
  const m = (list, key) => median(list.map((r) => r[key]).filter((x) => x !== null));
  const v = Object.fromEntries(Object.keys(vigil[0]).map((key) => [key, m(vigil, key)]));
  const l = Object.fromEntries(Object.keys(loops[0]).map((key) => [key, m(loops, key)]));
  const who = vigil[0].spawner
    ? "daemon + vigil-spawner + check processes"
    : "daemon spawning checks itself (no vigil-spawner) + check processes";
  console.log(
    `${WAITS} command waits (test -f, every ${INTERVAL} s, ${WAITS / 4} sessions), ${SECONDS} s, median of ${RUNS}; ${how.note}: ` +
      `vigil (${who}) ${pct(v.cpu)} of a core (daemon itself ${pct(v.daemonCpu)}${vigil[0].spawner ? `, vigil-spawner itself ${pct(v.spawnerCpu)}` : ""}) ` +
      `vs shell loops ${pct(l.cpu)} → ratio ${(v.cpu / l.cpu).toFixed(2)} (goal ≤ 1.0); ` +
      `lag p50 ${fmt(v.lagP50Ms)} · p99 ${fmt(v.lagP99Ms)} (checkLag over the last 1,000 checks, read ${v.lagReadings}× per run; worst reading's p99 ${fmt(v.lagWorstP99Ms)}), ` +
      `RSS ${mb(v.rssMb)} (PSS ${mb(v.pssMb)}), ${v.processes} resident processes, ${rate(v.checksPerSecond)} checks done · ` +
      `${WAITS} shell loops: summed RSS ${mb(l.rssMb)} (PSS ${mb(l.pssMb)}), ${l.processes} processes (each loop's sh and its sleep), ${rate(l.checksPerSecond)} checks done ` +
      `(goal: lag p99 < 1 s, RSS < 150 MB, 2 processes)`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
