// `npm run bench:panel` (issue #26): what the side panel's list costs the daemon. 10,000 waitpoints in
// 20 sessions (plus some in error, stalled, failed, so the Needs-you list has work), 5 changes a second
// (heartbeats to random waitpoints) meanwhile; `GET /api/panel` requested back to back over the owner's
// socket: p50/p99 per request and the daemon's CPU time per request, for the first page (limit 200, and
// 500 as the side panel asks), a filtered page (filter=needs), a search (q=) and one session; and
// `/healthz` latency every 20 ms meanwhile, beside /healthz with no panel load.
// A benchmark, not a test: it prints figures. Environment:
//   BENCH_PANEL_WAITPOINTS (10000), BENCH_PANEL_SECONDS (5)
//   BENCH_PANEL_BEFORE=DIR   also measures the daemon of another checkout (built), e.g. the code before
//                            a change, in the same run: both daemons run side by side and each query
//                            goes to one then the other, round after round; its lines are marked "before"
//   BENCH_PANEL_PROFILE=1    this checkout's daemon runs with --cpu-prof; the profile, a flame graph
//                            (.svg) and the hottest functions go to bench/output/ (not committed); the
//                            profiled run's figures are slower than an unprofiled one's
//
// The browser side of the figures (first list painted, main-thread work per change, an idle
// open panel's CPU) is measured by the extension's suite; set BENCH_PANEL_BROWSER=1 once it provides
// `bench/panel-browser.js` exporting `run()` and this script runs it after the daemon figures.
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { request } from "node:http";
import { loadavg } from "node:os";
import { join } from "node:path";
import { cpuSeconds, Daemon, fmt, inProcess, quantile, ROOT, sleep } from "./lib.js";
import { flameGraph, printHot } from "./profile-report.js";

const WAITPOINTS = Number(process.env.BENCH_PANEL_WAITPOINTS ?? 10_000);
const SECONDS = Number(process.env.BENCH_PANEL_SECONDS ?? 5);
const SESSIONS = 20;
const CHANGES_PER_SECOND = 5;
const BEFORE = process.env.BENCH_PANEL_BEFORE;
const PROFILE = process.env.BENCH_PANEL_PROFILE === "1";
const OUTPUT = join(import.meta.dirname, "output");
/** Requests of one kind in a row to one daemon, its CPU time read around them (/proc counts in 10 ms ticks). */
const BLOCK = 5;

/**
 * Arms the waitpoints straight through the engine (the code the API runs) of the checkout measured,
 * before its daemon starts.
 */
async function seed(home, checkout) {
  const { ensureHome } = await import(join(checkout, "dist/native-host/src/base/home.js"));
  const { services, close } = await inProcess(checkout, ensureHome(home).db);
  const { engine, waitpoints } = services;
  const ids = [];
  for (let s = 0; s < SESSIONS; s++) await engine.createSession({ id: `team-${s}`, label: `Team ${s} training runs` });
  for (let i = 0; i < WAITPOINTS; i++) {
    const sid = `team-${i % SESSIONS}`;
    // Every 50th has a short heartbeat timeout: it stalls (Needs you).
    const body = { label: `train-arm${i}`, intent: "compare the arms and report", max_signals: 3 };
    if (i % 50 === 0) body.heartbeat_timeout_seconds = 1;
    ids.push((await waitpoints.create(sid, body)).id);
  }
  await close();
  return ids;
}

function stats(values) {
  return `p50 ${fmt(quantile(values, 0.5))} · p99 ${fmt(quantile(values, 0.99))} · max ${fmt(Math.max(...values))} (n=${values.length})`;
}

/** One GET over the owner's socket, timed to its last byte (the reply is parsed after the clock stops). */
function timed(daemon, path) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request({ socketPath: join(daemon.home, "api.sock"), path, headers: { host: "localhost" } }, (res) => {
      const chunks = [];
      res.on("data", (chunk) => chunks.push(chunk));
      res.on("end", () => {
        const ms = performance.now() - t0;
        const text = Buffer.concat(chunks).toString("utf8");
        if (res.statusCode !== 200) reject(new Error(`GET ${path} answered ${res.statusCode}: ${text}`));
        else resolve({ ms, text });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** /healthz every 20 ms until `stop()`; its latencies. */
function healthProbe(daemon) {
  const latencies = [];
  let running = true;
  const done = (async () => {
    while (running) {
      latencies.push((await timed(daemon, "/healthz")).ms);
      await sleep(20);
    }
  })();
  return {
    latencies,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

/** 5 heartbeats a second to random waitpoints (the owner's signal route), until `stop()`. */
function changes(daemon, ids) {
  let running = true;
  const done = (async () => {
    while (running) {
      const id = ids[Math.floor(Math.random() * ids.length)];
      await daemon.api("POST", `/api/waitpoints/${id}/signal`, { status: "progress", message: "step" });
      await sleep(1000 / CHANGES_PER_SECOND);
    }
  })();
  return async () => {
    running = false;
    await done;
  };
}

const QUERIES = {
  "first page (limit 200)": "/api/panel?limit=200",
  "first page in one request (limit 500)": "/api/panel?limit=500",
  // What the panel does (extension/lib/panel-refresh.ts): its page of 500 in requests of at most 200.
  "first page as the panel asks (500 in requests of 200, 200, 100)": [
    "/api/panel?limit=200",
    "/api/panel?offset=200&limit=200",
    "/api/panel?offset=400&limit=100",
  ],
  "Needs you (filter=needs)": "/api/panel?filter=needs&limit=200",
  "search (q=arm77)": "/api/panel?q=arm77&limit=200",
  "one session, page 10": "/api/panel?session=team-7&offset=400&limit=50",
};

/** One checkout's daemon on a fresh home seeded by its own code, started and warmed up. */
async function startSide(checkout, profileDir) {
  const nodeArgs = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
  const daemon = new Daemon(undefined, {}, { nodeArgs, bin: join(checkout, "bin", "vigil.js") });
  const ids = await seed(daemon.home, checkout);
  await daemon.start();
  return { daemon, ids };
}

/**
 * The figures of every side, measured together: the idle /healthz of all at once, then, under the
 * changes, each query asked of one side after the other, round after round, so that all see the same
 * machine (other work on it slows each alike).
 */
async function measure(sides) {
  await sleep(3000); // the stalled ones stall (and fail: fail-fast); the daemons settle
  for (const { daemon } of sides) for (let i = 0; i < 20; i++) await timed(daemon, "/api/panel?limit=200"); // warm-up
  const idle = sides.map(({ daemon }) => healthProbe(daemon));
  await sleep(SECONDS * 1000);
  for (const probe of idle) await probe.stop();

  const stops = sides.map(({ daemon, ids }) => changes(daemon, ids));
  const busy = sides.map(({ daemon }) => healthProbe(daemon));
  const firsts = [];
  for (const { daemon } of sides) firsts.push(await timed(daemon, "/api/panel?limit=200"));
  const figures = sides.map(() => Object.fromEntries(Object.keys(QUERIES).map((name) => [name, []])));
  const cpu = sides.map(() => Object.fromEntries(Object.keys(QUERIES).map((name) => [name, 0])));
  const until = performance.now() + SECONDS * sides.length * 1000;
  while (performance.now() < until) {
    for (const [name, paths] of Object.entries(QUERIES)) {
      for (const [i, { daemon }] of sides.entries()) {
        const cpu0 = cpuSeconds(daemon.pid);
        for (let k = 0; k < BLOCK; k++)
          for (const path of [paths].flat()) figures[i][name].push((await timed(daemon, path)).ms);
        cpu[i][name] += cpuSeconds(daemon.pid) - cpu0;
      }
    }
  }
  for (const probe of busy) await probe.stop();
  for (const stop of stops) await stop();
  return sides.map((_, i) => ({
    body: JSON.parse(firsts[i].text),
    bytes: Buffer.byteLength(firsts[i].text),
    figures: figures[i],
    cpu: cpu[i],
    idle: idle[i].latencies,
    busy: busy[i].latencies,
  }));
}

function report(label, r) {
  console.log(
    `  ${label}first page: ${r.body.items.length} of ${r.body.total} items, ${(r.bytes / 1024).toFixed(0)} KB, Needs you ${r.body.attention?.length ?? "n/a (no attention list)"}`,
  );
  for (const [name, values] of Object.entries(r.figures)) {
    const perRequest = fmt((1000 * r.cpu[name]) / values.length);
    console.log(`  ${label}/api/panel ${name}: ${stats(values)} · daemon CPU ${perRequest} a request`);
  }
  console.log(`  ${label}/healthz every 20 ms, no panel requests: ${stats(r.idle)}`);
  console.log(`  ${label}/healthz every 20 ms, panel requested back to back: ${stats(r.busy)}`);
}

export async function run() {
  const load0 = loadavg()[0];
  let profileDir = null;
  if (PROFILE) {
    profileDir = join(OUTPUT, `panel-profile-${new Date().toISOString().replace(/[:.]/g, "-")}`);
    mkdirSync(profileDir, { recursive: true });
  }
  const sides = [await startSide(ROOT, profileDir), ...(BEFORE ? [await startSide(BEFORE, null)] : [])];
  const [after, before] = await measure(sides);
  for (const { daemon } of sides) await daemon.dispose();
  console.log(
    `panel list: ${WAITPOINTS} waitpoints in ${SESSIONS} sessions, ${CHANGES_PER_SECOND} changes/s, requests back to back over the owner's socket (goal p99 < 20 ms at 10,000 waitpoints)${PROFILE ? " (this checkout profiled)" : ""}`,
  );
  report("", after);
  if (before) report(`before (${BEFORE}): `, before);
  console.log(`  load average (1 min) at start ${load0.toFixed(2)}, at end ${loadavg()[0].toFixed(2)}`);
  if (profileDir) {
    const file = readdirSync(profileDir).find((name) => name.endsWith(".cpuprofile"));
    if (file) {
      flameGraph(join(profileDir, file), join(profileDir, "flame.svg"));
      printHot(join(profileDir, file), 30);
      console.log(`profile: ${join(profileDir, file)} and ${join(profileDir, "flame.svg")}`);
    } else console.log(`profile: none written in ${profileDir} (the daemon did not exit cleanly)`);
  }

  if (process.env.BENCH_PANEL_BROWSER === "1") {
    const browser = join(import.meta.dirname, "panel-browser.js");
    if (!existsSync(browser)) throw new Error(`BENCH_PANEL_BROWSER=1: expected ${browser} (the extension's figures)`);
    await (await import(browser)).run();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
