// Shared helpers for the benchmarks: a real daemon on a temporary home, timing, statistics, and
// CPU/RSS readings from /proc. Benchmarks print figures; they never pass or fail.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
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
  constructor(home = mkdtempSync(join(tmpdir(), "vigil-bench-")), env = {}) {
    this.home = home;
    this.env = env;
  }

  async start() {
    this.child = spawn(process.execPath, [BIN, "serve", "--home", this.home, "--port", "0"], {
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

  async api(method, path, body) {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
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

/** Arms many monitors straight through the engine (the same code the API runs), fast. */
export async function seed(
  home,
  { waitpoints = 5000, timeMonitors = 5000, commandWaits = 0, command = "false", intervalSeconds = 5 } = {},
) {
  const { Store } = await import(join(ROOT, "dist/native-host/src/store/store.js"));
  const { wireServices } = await import(join(ROOT, "dist/native-host/src/daemon.js"));
  const { silentLogger } = await import(join(ROOT, "dist/native-host/src/base/log.js"));
  const { ensureHome } = await import(join(ROOT, "dist/native-host/src/base/home.js"));
  const paths = ensureHome(home);
  const store = Store.open(paths.db);
  const { engine, waitpoints: points, delivery } = wireServices({ store, log: silentLogger });
  delivery.stop();
  const far = new Date(Date.now() + 6 * 24 * 3_600_000).toISOString();
  store.tx(() => {
    for (let s = 0; s < Math.ceil(timeMonitors / 20); s++) {
      engine.createSession({ id: `bench-${s}` });
      for (let i = 0; i < 20 && s * 20 + i < timeMonitors; i++) {
        engine.createMonitor(`bench-${s}`, { source: { kind: "time", at: far }, timeoutSeconds: 7 * 24 * 3600 });
      }
    }
    for (let i = 0; i < commandWaits; i++) {
      if (i % 4 === 0) engine.createSession({ id: `lag-${i / 4}` }); // 4 command waits per session at most
      engine.createMonitor(`lag-${Math.floor(i / 4)}`, {
        source: { kind: "command", command },
        intervalSeconds,
        timeoutSeconds: 600,
      });
    }
    engine.createSession({ id: "bench-wp" });
    for (let i = 0; i < waitpoints; i++) points.create("bench-wp", { label: `wp ${i}`, intent: "bench" });
  });
  engine.stop();
  store.close();
}
