// Issue #19's figure: N command waits (`test -f` on a file that never appears, every 5 s, 4 per
// session) checked by the daemon for SECONDS, beside N shell loops `until test -f …; do sleep 5;
// done` in the same run (one after the other, so they do not share the CPU). Vigil's CPU is the
// daemon's plus its spawner's, each with the check processes they reaped; the loops' is theirs with
// their `sleep`s. Lag is the status route's `checkLag` (how late each check started against its due
// time); resident processes are the daemon and its direct children, sampled every second.
// `VIGIL_SPAWNER=off node bench/command-waits.js` measures the fallback (checks spawned from the daemon).
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { cpuSeconds, Daemon, fmt, quantile, rssMb, seed, sleep } from "./lib.js";

const SECONDS = Number(process.env.BENCH_CW_SECONDS ?? 60);
const WAITS = Number(process.env.BENCH_CW_WAITS ?? 1000);
const RUNS = Number(process.env.BENCH_CW_RUNS ?? 1);
const MISSING = "/nonexistent/vigil-bench-flag";

/** Busy jiffies of the whole machine (all cores), in seconds: short-lived processes are counted here. */
function machineSeconds() {
  const [, ...fields] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = fields.map(Number);
  return (user + nice + system + irq + softirq + steal) / 100;
}

/** What the machine burns with nothing of ours running, per second (subtracted from both sides). */
async function baseline() {
  const m0 = machineSeconds();
  const t0 = performance.now();
  await sleep(5000);
  return (machineSeconds() - m0) / ((performance.now() - t0) / 1000);
}

function childrenOf(pid) {
  const found = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const ppid = Number(stat.slice(close + 2).split(" ")[1]);
      if (ppid === pid) found.push({ pid: Number(entry), comm: stat.slice(stat.indexOf("(") + 1, close) });
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

async function vigilOnce() {
  const daemon = new Daemon();
  await seed(daemon.home, {
    waitpoints: 0,
    timeMonitors: 0,
    commandWaits: WAITS,
    command: `test -f ${MISSING}`,
  });
  await daemon.start();
  await sleep(6000); // past the first round, which starts as fast as they are created
  const helper = childrenOf(daemon.pid).find((p) => p.comm === "vigil-spawner")?.pid;
  const cpu = () => cpuSeconds(daemon.pid, true) + (helper ? cpuSeconds(helper, true) : 0);
  const cpu0 = cpu();
  const self0 = cpuSeconds(daemon.pid) + (helper ? cpuSeconds(helper) : 0);
  const m0 = machineSeconds();
  const t0 = performance.now();
  const resident = [];
  while (performance.now() - t0 < SECONDS * 1000) {
    await sleep(1000);
    resident.push(1 + childrenOf(daemon.pid).length);
  }
  const used = cpu() - cpu0;
  const self = cpuSeconds(daemon.pid) + (helper ? cpuSeconds(helper) : 0) - self0;
  const machine = machineSeconds() - m0;
  const wall = (performance.now() - t0) / 1000;
  const rss = rssMb(daemon.pid) + (helper ? rssMb(helper) : 0);
  const { checkLag } = (await daemon.api("GET", "/api/status")).body;
  await daemon.dispose();
  return {
    cores: used / wall,
    self: self / wall,
    machine: machine / wall,
    checkLag,
    rss,
    resident: quantile(resident, 0.5),
    helper: Boolean(helper),
  };
}

async function loopsOnce() {
  const loops = Array.from({ length: WAITS }, () =>
    spawn("sh", ["-c", `until test -f ${MISSING}; do sleep 5; done`], { stdio: "ignore" }),
  );
  await sleep(6000);
  const before = loops.map((p) => cpuSeconds(p.pid, true));
  const m0 = machineSeconds();
  const t0 = performance.now();
  await sleep(SECONDS * 1000);
  const machine = machineSeconds() - m0;
  const used = loops.reduce((sum, p, i) => sum + cpuSeconds(p.pid, true) - before[i], 0);
  const wall = (performance.now() - t0) / 1000;
  const rss = loops.reduce((sum, p) => sum + rssMb(p.pid), 0);
  for (const p of loops) p.kill("SIGKILL");
  return { cores: used / wall, machine: machine / wall, rss };
}

export async function run() {
  const vigil = [];
  const loops = [];
  const idle = [];
  for (let i = 0; i < RUNS; i++) {
    idle.push(await baseline());
    vigil.push(await vigilOnce());
    loops.push(await loopsOnce());
  }
  const base = quantile(idle, 0.5);
  const med = (values) => quantile(values, 0.5);
  const v = {
    cores: med(vigil.map((r) => r.cores)),
    self: med(vigil.map((r) => r.self)),
    machine: med(vigil.map((r) => r.machine)) - base,
    p50: med(vigil.map((r) => r.checkLag.p50Ms)),
    p99: med(vigil.map((r) => r.checkLag.p99Ms)),
    rss: med(vigil.map((r) => r.rss)),
    resident: med(vigil.map((r) => r.resident)),
  };
  const l = {
    cores: med(loops.map((r) => r.cores)),
    machine: med(loops.map((r) => r.machine)) - base,
    rss: med(loops.map((r) => r.rss)),
  };
  const how = vigil[0].helper ? "daemon + vigil-spawner" : "daemon spawning itself (no vigil-spawner)";
  console.log(
    `${WAITS} command waits (test -f, every 5 s, ${WAITS / 4} sessions), ${SECONDS} s, median of ${RUNS}: ` +
      `whole machine, idle baseline ${(100 * base).toFixed(1)} % subtracted: vigil (${how}) ${(100 * v.machine).toFixed(1)} % of a core ` +
      `vs shell loops ${(100 * l.machine).toFixed(1)} % → ratio ${(v.machine / l.machine).toFixed(2)} (goal ≤ 1.0); ` +
      `per process (/proc/PID/stat, misses short-lived children): vigil ${(100 * v.cores).toFixed(1)} % (daemon + spawner themselves ${(100 * v.self).toFixed(1)} %), lag p50 ${fmt(v.p50)} · p99 ${fmt(v.p99)}, RSS ${v.rss.toFixed(0)} MB, ` +
      `${v.resident} resident processes · ${WAITS} shell loops ${(100 * l.cores).toFixed(1)} % of a core, summed RSS ${l.rss.toFixed(0)} MB, ${WAITS} resident processes ` +
      `(goal: lag p99 < 1 s, RSS < 150 MB, 2 processes)`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
