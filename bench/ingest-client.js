// The ingest bench's load generator, in a process of its own (bench/ingest.js starts one per side, so
// its CPU is its own and is reported): autocannon keeps CONNECTIONS keep-alive connections busy with
// POST /webhook/signal bodies, each a new key, for a warm-up and then a measured window.
// Input: one JSON argument {url, targets: [{id, secret}], status, connections, warmupSeconds,
// seconds, serverPid}. Output: one JSON line on stdout with the measured window's figures.
// Latencies are kept at full resolution here (autocannon's own histogram rounds to whole ms).
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import autocannon from "autocannon";
import { cpuSeconds } from "./lib.js";

const config = JSON.parse(process.argv[2] ?? "{}");
const { url, targets, status, connections, warmupSeconds, seconds, serverPid } = config;

/**
 * This drive's keys start with a mark of its own: several drives against the same waitpoints (the
 * three daemons' sides and runs on one database, bench/team.js) must not send each other's keys,
 * which would be stored once and answered as duplicates (no write) from the second drive on.
 */
const DRIVE = randomBytes(6).toString("hex");

/** Each request a new signal: the next target (round robin) and a key of its own. */
function requests(phase) {
  let n = 0;
  return [
    {
      method: "POST",
      path: new URL(url).pathname,
      headers: { "content-type": "application/json" },
      setupRequest(request) {
        const target = targets[n % targets.length];
        request.body = `{"id":"${target.id}","secret":"${target.secret}","status":"${status}","message":"step ${n}","key":"${DRIVE}-${phase}-${n}"}`;
        n++;
        return request;
      },
    },
  ];
}

function run(phase, duration, onResponse) {
  return new Promise((resolve, reject) => {
    const instance = autocannon({ url, connections, duration, requests: requests(phase) }, (error, result) =>
      error ? reject(error) : resolve(result),
    );
    if (onResponse) instance.on("response", onResponse);
  });
}

const warmup = await run("warm-up", warmupSeconds);

let latencies = new Float64Array(1 << 18);
let finished = new Float64Array(1 << 18);
let count = 0;
const record = (_client, _statusCode, _bytes, responseTime) => {
  if (count === latencies.length) {
    const grown = new Float64Array(latencies.length * 2);
    grown.set(latencies);
    latencies = grown;
    const grownAt = new Float64Array(finished.length * 2);
    grownAt.set(finished);
    finished = grownAt;
  }
  finished[count] = performance.now();
  latencies[count++] = responseTime;
};

const serverCpu0 = serverPid ? cpuSeconds(serverPid) : 0;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const result = await run("measured", seconds, record);
const wall = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const serverCpu = serverPid ? cpuSeconds(serverPid) - serverCpu0 : null;

// BENCH_INGEST_TRACE=FILE: every answer's finish time (ms from the window's start) and latency, one
// per line, to see whether the slow ones come together (a stall) or spread out (queueing).
if (process.env.BENCH_INGEST_TRACE) {
  const file = `${process.env.BENCH_INGEST_TRACE}-${serverPid ?? "server"}.txt`;
  const lines = [];
  for (let i = 0; i < count; i++) lines.push(`${(finished[i] - t0).toFixed(2)} ${latencies[i].toFixed(3)}`);
  writeFileSync(file, `${lines.join("\n")}\n`);
}

// Stalls: gaps of more than 10 ms in which the server answered nothing although 64 requests were
// waiting (its event loop was blocked), and the longest. Queueing alone leaves no such gap.
const done = finished.subarray(0, count).slice().sort();
let stalls = 0;
let longestGap = 0;
for (let i = 1; i < count; i++) {
  const gap = done[i] - done[i - 1];
  if (gap > 10) stalls++;
  if (gap > longestGap) longestGap = gap;
}

const sorted = latencies.subarray(0, count).sort();
const at = (q) => (count === 0 ? Number.NaN : sorted[Math.min(count - 1, Math.floor(q * count))]);
const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]));

process.stdout.write(
  `${JSON.stringify({
    perSecond: result.requests.total / result.duration,
    total: result.requests.total,
    duration: result.duration,
    p50: at(0.5),
    p99: at(0.99),
    p999: at(0.999),
    statuses,
    warmupAccepted: warmup.statusCodeStats["202"]?.count ?? 0,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    clientCores: (cpu.user + cpu.system) / 1e6 / wall,
    serverCores: serverCpu === null ? null : serverCpu / wall,
    stalls,
    longestGap,
  })}\n`,
);
