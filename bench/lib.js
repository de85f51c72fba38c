// Shared helpers for the benchmarks: a real daemon on a temporary home, timing, statistics, and
// CPU/RSS readings from /proc. Benchmarks print figures; they never pass or fail.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const ROOT = join(import.meta.dirname, "..");
export const BIN = join(ROOT, "bin", "vigil.js");
const TICKS = 100; // USER_HZ on Linux

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function quantile(values, q) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

export const fmt = (ms) =>
  ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : ms < 1000 ? `${ms.toFixed(2)} ms` : `${(ms / 1000).toFixed(2)} s`;

export function summary(values) {
  return `p50 ${fmt(quantile(values, 0.5))} · p99 ${fmt(quantile(values, 0.99))} · n=${values.length}`;
}

/** utime+stime (+ reaped children) of a process, in seconds. */
export function cpuSeconds(pid, withChildren = false) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const [utime, stime, cutime, cstime] = [fields[11], fields[12], fields[13], fields[14]].map(Number);
    return (utime + stime + (withChildren ? cutime + cstime : 0)) / TICKS;
  } catch {
    return 0;
  }
}

export function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

export async function waitUntil(probe, { timeoutMs = 30_000, everyMs = 5 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value) return value;
    if (Date.now() > deadline) throw new Error("timed out");
    await sleep(everyMs);
  }
}

export class Daemon {
  /**
   * `nodeArgs`: flags for Node itself, before the script (e.g. `--cpu-prof`); `bin`: another
   * checkout's bin/vigil.js (built), to measure the code before a change in the same run.
   */
  constructor(home = mkdtempSync(join(tmpdir(), "vigil-bench-")), env = {}, { nodeArgs = [], bin = BIN } = {}) {
    this.home = home;
    this.env = env;
    this.nodeArgs = nodeArgs;
    this.bin = bin;
  }

  async start() {
    this.child = spawn(process.execPath, [...this.nodeArgs, this.bin, "--home", this.home, "serve", "--port", "0"], {
      env: { ...process.env, ...this.env, VIGIL_HOME: this.home, VIGIL_LOG_LEVEL: "warn" },
      stdio: ["ignore", "ignore", "inherit"],
    });
    const info = await waitUntil(async () => {
      const parsed = JSON.parse(readFileSync(join(this.home, "daemon.json"), "utf8"));
      return parsed.pid === this.child.pid ? parsed : null;
    });
    this.url = info.url;
    this.token = readFileSync(join(this.home, "token"), "utf8").trim();
    return this;
  }

  get pid() {
    return this.child.pid;
  }

  /** One request on the owner-only socket, as the CLI makes it (no token). */
  api(method, path, body) {
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          socketPath: join(this.home, "api.sock"),
          method,
          path,
          headers: { host: "localhost", "content-type": "application/json" },
        },
        (res) => {
          const chunks = [];
          res.on("data", (chunk) => chunks.push(chunk));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            resolve({ status: res.statusCode, body: text ? JSON.parse(text) : undefined });
          });
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  }

  async kill(signal = "SIGTERM") {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    this.child.kill(signal);
    await exited;
  }

  async dispose() {
    await this.kill();
    rmSync(this.home, { recursive: true, force: true });
  }
}

/**
 * The daemon's services of `checkout` in this process, on the database `dbPath`, delivery stopped:
 * `{ sqlite, services, close }`. Works on code from before the async store (#27) too — its
 * `wireServices` takes the synchronous Store and its calls return values, which `await` also takes —
 * so a bench can set today's code beside an older checkout's.
 */
export async function inProcess(checkout, dbPath) {
  const load = (path) => import(join(checkout, "dist/native-host/src", path));
  const { Store } = await load("store/store.js");
  const { wireServices } = await load("daemon.js");
  const { silentLogger } = await load("base/log.js");
  const sqlite = Store.open(dbPath);
  const asyncStore = wireServices.constructor.name === "AsyncFunction";
  const store = asyncStore ? new (await load("store/engine.js")).SqliteEngine(sqlite) : sqlite;
  const services = await wireServices({ store, log: silentLogger });
  await services.delivery.stop();
  return {
    sqlite,
    services,
    close: async () => {
      await services.engine.stop();
      await store.close();
    },
  };
}

/** Arms many monitors straight through the engine (the same code the API runs). */
export async function seed(
  home,
  { waitpoints = 5000, timeMonitors = 5000, commandWaits = 0, command = "false", intervalSeconds = 5 } = {},
) {
  const { ensureHome } = await import(join(ROOT, "dist/native-host/src/base/home.js"));
  const { services, close } = await inProcess(ROOT, ensureHome(home).db);
  const { engine, waitpoints: points } = services;
  const far = new Date(Date.now() + 6 * 24 * 3_600_000).toISOString();
  for (let s = 0; s < Math.ceil(timeMonitors / 20); s++) {
    await engine.createSession({ id: `bench-${s}` });
    for (let i = 0; i < 20 && s * 20 + i < timeMonitors; i++) {
      await engine.createMonitor(`bench-${s}`, { source: { kind: "time", at: far }, timeoutSeconds: 7 * 24 * 3600 });
    }
  }
  for (let i = 0; i < commandWaits; i++) {
    if (i % 4 === 0) await engine.createSession({ id: `lag-${i / 4}` }); // 4 command waits per session at most
    await engine.createMonitor(`lag-${Math.floor(i / 4)}`, {
      source: { kind: "command", command },
      intervalSeconds,
      timeoutSeconds: 600,
    });
  }
  await engine.createSession({ id: "bench-wp" });
  for (let i = 0; i < waitpoints; i++) await points.create("bench-wp", { label: `wp ${i}`, intent: "bench" });
  await close();
}

// ------------------------------------------------------------------ exact CPU of a group of processes

/** Busy jiffies of the whole machine (all cores), in seconds: short-lived processes are counted here. */
export function machineSeconds() {
  const [, ...fields] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = fields.map(Number);
  return (user + nice + system + irq + softirq + steal) / TICKS;
}

/** What the machine burns per second meanwhile (cores), to subtract from a whole-machine reading. */
export async function machineIdleCores(ms = 5000) {
  const m0 = machineSeconds();
  const t0 = performance.now();
  await sleep(ms);
  return (machineSeconds() - m0) / ((performance.now() - t0) / 1000);
}

/** The processes of the machine with their parent, from /proc. */
function processTable() {
  const table = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      table.push({
        pid: Number(entry),
        ppid: Number(stat.slice(close + 2).split(" ")[1]),
        comm: stat.slice(stat.indexOf("(") + 1, close),
      });
    } catch {
      // Gone meanwhile.
    }
  }
  return table;
}

/** The process's name (`comm`), or null when it is gone. */
export function processName(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
  } catch {
    return null;
  }
}

/** How long the process has existed, in seconds (Infinity when it is gone). */
export function processAgeSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const started = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]) / TICKS;
    return Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]) - started;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** Summed RSS and PSS of processes, in MB (PSS splits each shared page among the processes mapping it). */
export function memoryMb(pids) {
  let rss = 0;
  let pss = 0;
  for (const pid of pids) {
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
      rss += Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0) / 1024;
      pss += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0) / 1024;
    } catch {
      try {
        const kb = rssMb(pid);
        rss += kb;
        pss += kb;
      } catch {
        // Gone meanwhile.
      }
    }
  }
  return { rss, pss };
}

function mountPoints() {
  return readFileSync("/proc/self/mounts", "utf8")
    .split("\n")
    .map((line) => line.split(" "))
    .filter((fields) => fields.length >= 4)
    .map(([, path, type, options]) => ({ path: path.replaceAll("\\040", " "), type, options: options.split(",") }));
}

/** This process's cgroup path in the v1 hierarchy holding `controller`, or in v2 (controller ""). */
function ownCgroup(controller) {
  for (const line of readFileSync("/proc/self/cgroup", "utf8").split("\n")) {
    const [, controllers, path] = line.split(/:(.*?):/);
    if (path === undefined) continue;
    if (controller === "" ? line.startsWith("0::") : controllers.split(",").includes(controller)) return path;
  }
  return "/";
}

/** Whether a process can be moved into a fresh group under `base` (tried with a shell moving itself). */
function usableBase(base, usageFile) {
  const probe = join(base, `vigil-bench-probe-${process.pid}`);
  try {
    mkdirSync(probe);
  } catch {
    return false;
  }
  try {
    readFileSync(join(probe, usageFile), "utf8");
    return spawnSync("sh", ["-c", `echo $$ > '${probe}/cgroup.procs'`], { stdio: "ignore" }).status === 0;
  } catch {
    return false;
  } finally {
    try {
      rmdirSync(probe);
    } catch {
      // Still holds the probe's shell for a moment: left for the next start to try again.
    }
  }
}

let accounting;

/**
 * How CpuGroup counts CPU on this machine: a cgroup v1 `cpuacct` group (cpuacct.usage, ns), else a
 * cgroup v2 group (cpu.stat usage_usec), both exact — every process moved in and every child it starts
 * later, however short-lived, while it is there — else the whole machine from /proc/stat (anything
 * else running counts too: subtract `machineIdleCores()`), with `note` saying so.
 * `BENCH_CPU=v1|v2|machine` forces one.
 */
export function cpuAccounting() {
  if (accounting) return accounting;
  const forced = process.env.BENCH_CPU;
  const mounts = (() => {
    try {
      return mountPoints();
    } catch {
      return [];
    }
  })();
  const candidates = [];
  if (!forced || forced === "v1") {
    for (const m of mounts.filter((m) => m.type === "cgroup" && m.options.includes("cpuacct"))) {
      for (const base of new Set([join(m.path, ownCgroup("cpuacct"), "."), join(m.path, ".")])) {
        candidates.push({ kind: "v1", base, usageFile: "cpuacct.usage" });
      }
    }
  }
  if (!forced || forced === "v2") {
    for (const m of mounts.filter((m) => m.type === "cgroup2")) {
      for (const base of new Set([join(m.path, "."), join(m.path, ownCgroup(""), ".")])) {
        candidates.push({ kind: "v2", base, usageFile: "cpu.stat" });
      }
    }
  }
  const found = candidates.find((c) => usableBase(c.base, c.usageFile));
  accounting = found
    ? {
        ...found,
        exact: true,
        note:
          found.kind === "v1"
            ? `CPU from a cgroup v1 cpuacct group per side (${found.base}, cpuacct.usage): exact, short-lived children included`
            : `CPU from a cgroup v2 group per side (${found.base}, cpu.stat usage_usec): exact, short-lived children included`,
      }
    : {
        kind: "machine",
        exact: false,
        note:
          forced === "machine"
            ? "CPU from the whole machine (/proc/stat, BENCH_CPU=machine) minus an idle baseline: anything else running counts too"
            : "no writable cgroup (v1 cpuacct or v2; needs root): CPU from the whole machine (/proc/stat) minus an idle baseline — anything else running counts too",
      };
  return accounting;
}

const openGroups = new Set();
let groupCount = 0;

function killAll(pids) {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
}

function onInterrupt(signal) {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let tries = 0; tries < 40; tries++) {
    const left = [...openGroups].flatMap((group) => group.pids());
    if (left.length === 0) break;
    killAll(left);
    Atomics.wait(pause, 0, 0, 50);
  }
  for (const group of openGroups) group.removeNow();
  process.exit(signal === "SIGINT" ? 130 : 143);
}

/**
 * A group of processes whose CPU is counted together, children included (see cpuAccounting()):
 * `add(pid)` right after spawning a process (what it starts later joins by itself), `seconds()` for
 * the CPU used so far, `pids()` for the processes in it now, `close()` to kill what is left and remove
 * it. On a machine without a usable cgroup, `seconds()` is the whole machine's busy time and `pids()`
 * the added processes with their descendants.
 */
export class CpuGroup {
  constructor(label) {
    const how = cpuAccounting();
    this.kind = how.kind;
    this.exact = how.exact;
    this.roots = [];
    if (this.exact) {
      this.dir = join(how.base, `vigil-bench-${process.pid}-${label}-${groupCount++}`);
      mkdirSync(this.dir);
    }
    if (openGroups.size === 0) {
      process.once("SIGINT", onInterrupt);
      process.once("SIGTERM", onInterrupt);
    }
    openGroups.add(this);
  }

  add(pid) {
    if (!pid) throw new Error("CpuGroup.add: no pid (the spawn failed)");
    this.roots.push(pid);
    if (this.exact) writeFileSync(join(this.dir, "cgroup.procs"), String(pid));
  }

  /** CPU used by the group's processes so far (whole machine without a cgroup), in seconds. */
  seconds() {
    if (this.kind === "v1") return Number(readFileSync(join(this.dir, "cpuacct.usage"), "utf8")) / 1e9;
    if (this.kind === "v2") {
      return Number(/^usage_usec (\d+)/m.exec(readFileSync(join(this.dir, "cpu.stat"), "utf8"))?.[1]) / 1e6;
    }
    return machineSeconds();
  }

  pids() {
    if (this.exact) {
      try {
        return readFileSync(join(this.dir, "cgroup.procs"), "utf8").split("\n").filter(Boolean).map(Number);
      } catch {
        return [];
      }
    }
    const table = processTable();
    const alive = new Set(table.map((p) => p.pid));
    const found = new Set(this.roots.filter((pid) => alive.has(pid)));
    for (let grew = true; grew; ) {
      grew = false;
      for (const p of table) {
        if (!found.has(p.pid) && found.has(p.ppid)) {
          found.add(p.pid);
          grew = true;
        }
      }
    }
    return [...found];
  }

  removeNow() {
    openGroups.delete(this);
    if (openGroups.size === 0) {
      process.removeListener("SIGINT", onInterrupt);
      process.removeListener("SIGTERM", onInterrupt);
    }
    if (!this.exact) return true;
    try {
      rmdirSync(this.dir);
      return true;
    } catch {
      return false;
    }
  }

  /** Kills what is left in the group (SIGKILL, by pid) and removes it. */
  async close({ timeoutMs = 15_000 } = {}) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const left = this.pids();
      if (left.length === 0 || Date.now() > deadline) break;
      killAll(left);
      await sleep(100);
    }
    if (!this.removeNow() && this.exact) console.error(`note: could not remove ${this.dir}`);
  }
}

/** A session `sid` with `count` waitpoints armed in it (`m0`…), each taking up to 1,000 signals. */
export async function armWaitpoints(engine, waitpoints, sid, count) {
  await engine.createSession({ id: sid });
  const targets = [];
  for (let i = 0; i < count; i++) {
    targets.push(await waitpoints.create(sid, { label: `m${i}`, intent: "bench", max_signals: 1000 }));
  }
  return targets;
}
