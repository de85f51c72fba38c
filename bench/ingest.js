// Figure 2 (design.md §10): signal ingest on POST /webhook/signal, beside node:http answering the
// same requests with one better-sqlite3 insert each and with no work at all, in the same run, driven
// by the same load generator: autocannon in a process of its own (bench/ingest-client.js), so the
// client's CPU is separate and reported.
//
// The client check: the rate the client reaches against the server that does no work is its
// ceiling (or that server's, which only raises the client's). The insert server and Vigil must each
// stay at least 10 % below that ceiling; then the client had headroom while driving them and the
// figures are the servers', not the client's. If either comes within 10 %, the bench says so and
// exits 1.
//
// `npm run bench:ingest` (or `node bench/signals.js ingest`). Environment:
//   BENCH_INGEST_SECONDS (8)     measured window per side
//   BENCH_INGEST_WARMUP (2)      warm-up per side before it (same load, not counted)
//   BENCH_INGEST_CONNECTIONS (64)
//   BENCH_INGEST_WAITPOINTS (200) armed waitpoints the progress signals go to, round robin
//   BENCH_INGEST_RUNS (1)        runs of the three sides, one after another
//   BENCH_INGEST_BEFORE=DIR     also measures the daemon of another checkout (built), e.g. the code
//                                before a change, in the same run: a fourth line and its ratio
//   BENCH_INGEST_PROFILE=1       the daemon runs with --cpu-prof; the profile, a flame graph (.svg)
//                                and the hottest functions go to bench/output/ (not committed);
//                                the profiled run's figures are slower than an unprofiled one's
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Daemon, fmt } from "./lib.js";
import { flameGraph, printHot } from "./profile-report.js";

const env = (name, fallback) => Number(process.env[name] ?? fallback);
export const SECONDS = env("BENCH_INGEST_SECONDS", 8);
export const WARMUP_SECONDS = env("BENCH_INGEST_WARMUP", 2);
export const CONNECTIONS = env("BENCH_INGEST_CONNECTIONS", 64);
export const WAITPOINTS = env("BENCH_INGEST_WAITPOINTS", 200);
const RUNS = env("BENCH_INGEST_RUNS", 1);
const PROFILE = process.env.BENCH_INGEST_PROFILE === "1";
const BEFORE = process.env.BENCH_INGEST_BEFORE;
const OUTPUT = join(import.meta.dirname, "output");
/** The client must stay this far below its ceiling for a side's figure to be the server's. */
const HEADROOM = 0.1;
/** Issue #30's goal. */
const GOAL = { ratio: 0.7, p99Ms: 15 };

/**
 * Runs the load generator against `url` in its own process; its JSON result. `connections`: fewer
 * than CONNECTIONS when several generators share the load (bench/team.js).
 */
export function drive(url, targets, serverPid, { connections = CONNECTIONS } = {}) {
  const config = {
    url,
    targets,
    status: "progress",
    connections,
    warmupSeconds: WARMUP_SECONDS,
    seconds: SECONDS,
    serverPid,
  };
  const child = spawn(process.execPath, [join(import.meta.dirname, "ingest-client.js"), JSON.stringify(config)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (chunk) => {
    out += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => {
      if (code !== 0) reject(new Error(`Expected the load generator to exit 0, got ${code}`));
      else resolve(JSON.parse(out));
    });
  });
}

/** A baseline server (bench/ingest-baseline.js) in its own process. */
export async function baseline(mode) {
  const dir = mkdtempSync(join(tmpdir(), "vigil-bench-baseline-"));
  const child = spawn(
    process.execPath,
    [join(import.meta.dirname, "ingest-baseline.js"), mode, join(dir, "baseline.db")],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const port = await new Promise((resolve, reject) => {
    child.stdout.once("data", (chunk) => resolve(String(chunk).trim()));
    child.once("exit", (code) => reject(new Error(`Expected the ${mode} baseline to listen, it exited with ${code}`)));
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  // Any id and secret: the baselines do not check them.
  const targets = Array.from({ length: WAITPOINTS }, (_, i) => ({
    id: `wp_${i.toString(16).padStart(12, "0")}`,
    secret: "0".repeat(48),
  }));
  return {
    url: `http://127.0.0.1:${port}/webhook/signal`,
    pid: child.pid,
    targets,
    close: async () => {
      child.kill();
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh daemon with WAITPOINTS armed waitpoints (mailboxes: max_signals 1000). */
async function vigil(profileDir, checkout) {
  const nodeArgs = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
  const bin = checkout ? join(checkout, "bin", "vigil.js") : undefined;
  const daemon = await new Daemon(undefined, {}, { nodeArgs, bin }).start();
  await daemon.api("POST", "/api/sessions", { id: "ingest" });
  const targets = [];
  for (let i = 0; i < WAITPOINTS; i++) {
    const { body } = await daemon.api("POST", "/api/sessions/ingest/waitpoints", {
      label: `m${i}`,
      intent: "bench",
      max_signals: 1000,
    });
    targets.push({ id: body.id, secret: body.secret });
  }
  return { url: `${daemon.url}/webhook/signal`, pid: daemon.pid, targets, close: () => daemon.dispose() };
}

async function side(start) {
  const server = await start();
  try {
    return await drive(server.url, server.targets, server.pid);
  } finally {
    await server.close();
  }
}

export const count = (n) => Math.round(n).toLocaleString("en-US");
const refused = (r) => r.errors + r.timeouts;
/** One side's figures on one line (bench/team.js prints its sides the same way). */
export const line = (label, r) =>
  `${label.padEnd(22)} ${count(r.perSecond).padStart(7)} req/s · p50 ${fmt(r.p50)} · p99 ${fmt(r.p99)} · p99.9 ${fmt(r.p999)} · ` +
  `202 ${count(r.statuses["202"] ?? 0)}, non-2xx ${r.non2xx}, refused/errors ${refused(r)} · ` +
  `client CPU ${(100 * r.clientCores).toFixed(0)} % of a core, server CPU ${(100 * r.serverCores).toFixed(0)} % ` +
  `(${((1e6 * r.serverCores) / r.perSecond).toFixed(0)} µs a request) · stalls > 10 ms ${r.stalls}, longest ${fmt(r.longestGap)}`;

async function oneRun(index) {
  const load0 = loadavg()[0];
  let profileDir = null;
  if (PROFILE) {
    profileDir = join(OUTPUT, `ingest-profile-${new Date().toISOString().replace(/[:.]/g, "-")}`);
    mkdirSync(profileDir, { recursive: true });
  }
  const noop = await side(() => baseline("noop"));
  const insert = await side(() => baseline("insert"));
  const daemon = await side(() => vigil(profileDir));
  const before = BEFORE ? await side(() => vigil(null, BEFORE)) : null;
  const load1 = loadavg()[0];
  const ceiling = noop.perSecond;
  const ratio = daemon.perSecond / insert.perSecond;
  const clientOk = [insert, daemon, ...(before ? [before] : [])].every((r) => r.perSecond <= (1 - HEADROOM) * ceiling);

  console.log(
    `ingest run ${index + 1}/${RUNS} · ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up + ${SECONDS} s per side, progress signals to ${WAITPOINTS} waitpoints · load average ${load0.toFixed(1)} → ${load1.toFixed(1)} (2 cores)`,
  );
  console.log(line("node:http, no work", noop));
  console.log(line("node:http + 1 insert", insert));
  console.log(line(`vigil${PROFILE ? " (profiled)" : ""}`, daemon));
  if (before) console.log(line("vigil before", before));
  console.log(
    `client check: the client's ceiling (its rate against the server that does no work) ${count(ceiling)}/s; ` +
      `node:http + insert reached ${((100 * insert.perSecond) / ceiling).toFixed(0)} % of it, vigil ${((100 * daemon.perSecond) / ceiling).toFixed(0)} % → ` +
      (clientOk
        ? `both ≥ ${100 * HEADROOM} % below: the client was not the bottleneck`
        : `FAILED: a side came within ${100 * HEADROOM} % of the ceiling, so the client (or the machine) may be what was measured`),
  );
  const goal = ratio >= GOAL.ratio && daemon.p99 < GOAL.p99Ms && refused(daemon) === 0 && daemon.non2xx === 0;
  console.log(
    `vigil / (node:http + insert) = ${ratio.toFixed(2)}× · vigil p99 ${fmt(daemon.p99)}, refused ${refused(daemon)}, non-2xx ${daemon.non2xx} · ` +
      `goal (≥ ${GOAL.ratio}×, p99 < ${GOAL.p99Ms} ms, 0 refused): ${goal ? "met" : "NOT met"}`,
  );
  if (before) {
    console.log(
      `vigil before (${BEFORE}) / (node:http + insert) = ${(before.perSecond / insert.perSecond).toFixed(2)}×, p99 ${fmt(before.p99)}; ` +
        `CPU a request ${((1e6 * before.serverCores) / before.perSecond).toFixed(0)} µs before, ${((1e6 * daemon.serverCores) / daemon.perSecond).toFixed(0)} µs now`,
    );
  }
  if (profileDir) {
    const file = readdirSync(profileDir).find((name) => name.endsWith(".cpuprofile"));
    if (file) {
      flameGraph(join(profileDir, file), join(profileDir, "flame.svg"));
      printHot(join(profileDir, file), 30);
      console.log(`profile: ${join(profileDir, file)} and ${join(profileDir, "flame.svg")}`);
    } else console.log(`profile: none written in ${profileDir} (the daemon did not exit cleanly)`);
  }
  return { noop, insert, vigil: daemon, before, ratio, clientOk, goal, load: [load0, load1] };
}

export async function ingest({ runs = RUNS } = {}) {
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await oneRun(i));
  if (runs > 1) {
    console.log(
      `ingest, ${runs} runs: vigil / (node:http + insert) ${results.map((r) => `${r.ratio.toFixed(2)}×`).join(", ")}; ` +
        `vigil p99 ${results.map((r) => fmt(r.vigil.p99)).join(", ")}; goal met in ${results.filter((r) => r.goal).length} of ${runs}`,
    );
  }
  mkdirSync(OUTPUT, { recursive: true });
  writeFileSync(
    join(OUTPUT, `ingest-${new Date().toISOString().replace(/[:.]/g, "-")}.json`),
    `${JSON.stringify({ connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, waitpoints: WAITPOINTS, results }, null, 2)}\n`,
  );
  if (!results.every((r) => r.clientOk)) process.exitCode = 1;
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) await ingest();
