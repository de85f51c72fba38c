// `npm run bench:panel` (issue #26): what the side panel's list costs the daemon. 10,000 waitpoints in
// 20 sessions (plus some in error, stalled, failed, so the Needs-you list has work), 5 changes a second
// (heartbeats to random waitpoints) meanwhile; `GET /api/panel` requested back to back over the owner's
// socket: p50/p99 per request for the first page (limit 200), a filtered page (filter=needs), a search
// (q=) and one session; and `/healthz` latency every 20 ms meanwhile, beside /healthz with no panel load.
// A benchmark, not a test: it prints figures. BENCH_PANEL_WAITPOINTS, BENCH_PANEL_SECONDS override.
//
// The browser side of the figures (first list painted, main-thread work per change, an idle
// open panel's CPU) is measured by the extension's suite; set BENCH_PANEL_BROWSER=1 once it provides
// `bench/panel-browser.js` exporting `run()` and this script runs it after the daemon figures.
import { existsSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { Daemon, fmt, quantile, ROOT, sleep } from "./lib.js";

const WAITPOINTS = Number(process.env.BENCH_PANEL_WAITPOINTS ?? 10_000);
const SECONDS = Number(process.env.BENCH_PANEL_SECONDS ?? 5);
const SESSIONS = 20;
const CHANGES_PER_SECOND = 5;

/** Arms the waitpoints straight through the engine (the code the API runs), before the daemon starts. */
async function seed(home) {
  const { Store } = await import(join(ROOT, "dist/native-host/src/store/store.js"));
  const { wireServices } = await import(join(ROOT, "dist/native-host/src/daemon.js"));
  const { silentLogger } = await import(join(ROOT, "dist/native-host/src/base/log.js"));
  const { ensureHome } = await import(join(ROOT, "dist/native-host/src/base/home.js"));
  const store = Store.open(ensureHome(home).db);
  const { engine, waitpoints, delivery } = wireServices({ store, log: silentLogger });
  delivery.stop();
  const ids = [];
  store.tx(() => {
    for (let s = 0; s < SESSIONS; s++) engine.createSession({ id: `team-${s}`, label: `Team ${s} training runs` });
    for (let i = 0; i < WAITPOINTS; i++) {
      const sid = `team-${i % SESSIONS}`;
      // Every 50th has a short heartbeat timeout: it stalls (Needs you).
      const body = { label: `train-arm${i}`, intent: "compare the arms and report", max_signals: 3 };
      if (i % 50 === 0) body.heartbeat_timeout_seconds = 1;
      ids.push(waitpoints.create(sid, body).id);
    }
  });
  engine.stop();
  store.close();
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

export async function run() {
  const daemon = new Daemon();
  const ids = await seed(daemon.home);
  await daemon.start();
  await sleep(3000); // the stalled ones stall (and fail: fail-fast); the daemon settles
  for (let i = 0; i < 20; i++) await timed(daemon, "/api/panel?limit=200"); // warm-up (JIT, page cache)

  const idle = healthProbe(daemon);
  await sleep(SECONDS * 1000);
  await idle.stop();

  const stopChanges = changes(daemon, ids);
  const probe = healthProbe(daemon);
  const first = await timed(daemon, "/api/panel?limit=200");
  first.body = JSON.parse(first.text);
  const queries = {
    "first page (limit 200)": "/api/panel?limit=200",
    "Needs you (filter=needs)": "/api/panel?filter=needs&limit=200",
    "search (q=arm77)": "/api/panel?q=arm77&limit=200",
    "one session, page 10": "/api/panel?session=team-7&offset=400&limit=50",
  };
  const figures = {};
  const until = performance.now() + SECONDS * 1000;
  for (const name of Object.keys(queries)) figures[name] = [];
  while (performance.now() < until) {
    for (const [name, path] of Object.entries(queries)) figures[name].push((await timed(daemon, path)).ms);
  }
  await probe.stop();
  await stopChanges();
  const bytes = Buffer.byteLength(first.text);

  console.log(
    `panel list: ${WAITPOINTS} waitpoints in ${SESSIONS} sessions, ${CHANGES_PER_SECOND} changes/s, requests back to back over the owner's socket (goal p99 < 20 ms at 10,000 waitpoints)`,
  );
  console.log(
    `  first page: ${first.body.items.length} of ${first.body.total} items, ${(bytes / 1024).toFixed(0)} KB, Needs you ${first.body.attention?.length ?? "n/a (no attention list)"}`,
  );
  for (const [name, values] of Object.entries(figures)) console.log(`  /api/panel ${name}: ${stats(values)}`);
  console.log(`  /healthz every 20 ms, no panel requests: ${stats(idle.latencies)}`);
  console.log(`  /healthz every 20 ms, panel requested back to back: ${stats(probe.latencies)}`);
  await daemon.dispose();

  if (process.env.BENCH_PANEL_BROWSER === "1") {
    const browser = join(import.meta.dirname, "panel-browser.js");
    if (!existsSync(browser)) throw new Error(`BENCH_PANEL_BROWSER=1: expected ${browser} (the extension's figures)`);
    await (await import(browser)).run();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
