// Figures 1 and 6 (design.md §10): idle cost with 10,000 armed waitpoints and time monitors, beside the
// same minute of 1,000 `until …; do sleep 5; done` shell loops; and restart time after kill -9.
import { spawn } from "node:child_process";
import { cpuSeconds, Daemon, fmt, rssMb, seed, sleep, waitUntil } from "./lib.js";

const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 60);
const LOOPS = Number(process.env.BENCH_LOOPS ?? 1000);

export async function run() {
  const daemon = new Daemon();
  const seeded = performance.now();
  await seed(daemon.home, { waitpoints: 5000, timeMonitors: 5000 });
  console.log(
    `seeded 10,000 armed monitors (5,000 waitpoints + 5,000 time monitors 6 days out) in ${fmt(performance.now() - seeded)}`,
  );
  await daemon.start();

  // ---- idle cost
  await sleep(2000);
  const cpu0 = cpuSeconds(daemon.pid);
  const t0 = performance.now();
  await sleep(IDLE_SECONDS * 1000);
  const daemonCpu = cpuSeconds(daemon.pid) - cpu0;
  const wall = (performance.now() - t0) / 1000;
  const rss = rssMb(daemon.pid);
  console.log(
    `idle: vigil daemon with 10,000 armed: ${((100 * daemonCpu) / wall).toFixed(3)} % of one core over ${wall.toFixed(0)} s, RSS ${rss.toFixed(0)} MB (goal < 1 %, < 200 MB)`,
  );

  const loops = Array.from({ length: LOOPS }, () =>
    spawn("sh", ["-c", "until test -f /nonexistent/vigil-bench; do sleep 5; done"], { stdio: "ignore" }),
  );
  await sleep(2000);
  const before = loops.map((p) => cpuSeconds(p.pid, true));
  const l0 = performance.now();
  await sleep(IDLE_SECONDS * 1000);
  const loopCpu = loops.reduce((sum, p, i) => sum + cpuSeconds(p.pid, true) - before[i], 0);
  const loopWall = (performance.now() - l0) / 1000;
  const loopRss = loops.reduce((sum, p) => sum + rssMb(p.pid), 0);
  for (const p of loops) p.kill("SIGKILL");
  const perLoop = loopCpu / LOOPS;
  console.log(
    `idle: ${LOOPS} shell loops (sleep 5): ${((100 * loopCpu) / loopWall).toFixed(3)} % of one core, summed RSS ${loopRss.toFixed(0)} MB (shared pages counted per process); ` +
      `per waiter: vigil ${((1e6 * daemonCpu) / 10_001 / wall).toFixed(3)} µs CPU/s vs shell loop ${((1e6 * perLoop) / loopWall).toFixed(3)} µs CPU/s ` +
      `(ratio ${daemonCpu > 0 ? (perLoop / loopWall / (daemonCpu / 10_001 / wall)).toFixed(0) : "∞"}×)`,
  );

  // ---- restart after kill -9: one command wait is due while the daemon is down
  await daemon.api("POST", "/api/sessions", { id: "bench-cmd" });
  await daemon.api("POST", "/api/sessions/bench-cmd/monitors", {
    source: { kind: "command", command: "false" },
    intervalSeconds: 5,
    timeoutSeconds: 600,
  });
  const armed = await waitUntil(async () => {
    const { body } = await daemon.api("GET", "/api/sessions/bench-cmd/monitors/mon-1");
    return body.polls >= 1 && body;
  });
  await daemon.kill("SIGKILL");
  // Start again only once its next check (one interval plus its phase after the first) has passed.
  await sleep(Math.max(0, Date.parse(armed.nextCheckAt) - Date.now()) + 200);
  const start = performance.now();
  await daemon.start();
  const ready = performance.now() - start;
  await waitUntil(async () => (await daemon.api("GET", "/api/sessions/bench-cmd/monitors/mon-1")).body.polls >= 2, {
    everyMs: 2,
  });
  const firstCheck = performance.now() - start;
  console.log(
    `restart: kill -9 with 10,001 monitors → daemon.json + /healthz in ${fmt(ready)}, first due check recorded at ${fmt(firstCheck)} (goal < 1 s; includes node start-up)`,
  );
  await daemon.dispose();
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
