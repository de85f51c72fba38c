// `node bench/notify.js` (issue #40): what Needs-you notifications cost the daemon. 1,000 entries
// (waitpoints whose heartbeat stalls, in 50 sessions) standing in the list; three channels (ntfy,
// Slack, Discord) on a local receiver. Prints, beside the same daemon before any channel exists:
//   - the daemon's CPU per second with the 1,000 entries and no channel (the notifier has nothing to do),
//   - the CPU from adding the three channels until each has its one grouped message (1,000 rows queued,
//     3 messages sent), and
//   - the CPU per second afterwards, with 3 × 1,000 entries known (each pass reads the list again).
// A benchmark, not a test: it prints figures. BENCH_NOTIFY_ENTRIES (1000), BENCH_NOTIFY_SECONDS (10).
import { once } from "node:events";
import { createServer } from "node:http";
import { join } from "node:path";
import { cpuSeconds, Daemon, inProcess, ROOT, sleep, waitUntil } from "./lib.js";

const ENTRIES = Number(process.env.BENCH_NOTIFY_ENTRIES ?? 1000);
const SECONDS = Number(process.env.BENCH_NOTIFY_SECONDS ?? 10);
const SESSIONS = 50;

async function seedStalls(home) {
  const { ensureHome } = await import(join(ROOT, "dist/native-host/src/base/home.js"));
  const { services, close } = await inProcess(ROOT, ensureHome(home).db);
  for (let s = 0; s < SESSIONS; s++) await services.engine.createSession({ id: `s-${s}` });
  for (let i = 0; i < ENTRIES; i++) {
    await services.waitpoints.create(`s-${i % SESSIONS}`, {
      label: `job ${i}`,
      intent: "bench",
      heartbeat_timeout_seconds: 1,
    });
  }
  await close();
}

/** The daemon's CPU seconds per second over `seconds`. */
async function cpuRate(pid, seconds) {
  const before = cpuSeconds(pid);
  await sleep(seconds * 1000);
  return (cpuSeconds(pid) - before) / seconds;
}

const received = new Map();
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    received.set(req.url, (received.get(req.url) ?? 0) + 1);
    res.writeHead(200);
    res.end("{}");
  });
});
server.listen(0, "127.0.0.1");
await once(server, "listening");
const base = `http://127.0.0.1:${server.address().port}`;

const daemon = new Daemon(undefined, {
  VIGIL_NOTIFY_PASS_MS: "2000",
  VIGIL_NOTIFY_GROUP_MS: "1000",
  VIGIL_NOTIFY_RATE_MS: "60000",
});
await seedStalls(daemon.home);
await daemon.start();
try {
  await waitUntil(
    async () => {
      const page = await daemon.api("GET", "/api/panel?limit=1");
      return page.body.attention.length >= ENTRIES;
    },
    { timeoutMs: 60_000, everyMs: 250 },
  );
  await sleep(2000);
  const idle = await cpuRate(daemon.pid, SECONDS);
  const start = cpuSeconds(daemon.pid);
  const startedAt = Date.now();
  for (const kind of ["ntfy", "slack", "discord"]) {
    const added = await daemon.api("POST", "/api/notify", { kind, url: `${base}/${kind}` });
    if (added.status !== 201) throw new Error(`adding ${kind}: ${JSON.stringify(added.body)}`);
  }
  await waitUntil(async () => ["/ntfy", "/slack", "/discord"].every((path) => received.get(path) >= 1), {
    timeoutMs: 60_000,
    everyMs: 20,
  }).catch(async (error) => {
    console.error("received", received, JSON.stringify((await daemon.api("GET", "/api/notify")).body, null, 1));
    throw error;
  });
  const burst = cpuSeconds(daemon.pid) - start;
  const burstMs = Date.now() - startedAt;
  await sleep(2000);
  const steady = await cpuRate(daemon.pid, SECONDS);
  const messages = [...received.values()].reduce((a, b) => a + b, 0);
  console.log(`notify bench: ${ENTRIES} Needs-you entries in ${SESSIONS} sessions, 3 channels (ntfy, Slack, Discord)`);
  console.log(`  daemon CPU, entries standing, no channel:   ${(idle * 1000).toFixed(1)} ms/s`);
  console.log(
    `  3 channels added → 3 grouped messages:      ${(burst * 1000).toFixed(0)} ms CPU over ${burstMs} ms (${(
      (burst * 1e6) / (3 * ENTRIES)
    ).toFixed(0)} µs per entry and channel)`,
  );
  console.log(`  daemon CPU afterwards, 3 × ${ENTRIES} known:   ${(steady * 1000).toFixed(1)} ms/s (a pass every 2 s)`);
  console.log(`  messages received: ${messages} (expected 3: one per channel, every entry grouped)`);
} finally {
  await daemon.dispose();
  server.close();
}
