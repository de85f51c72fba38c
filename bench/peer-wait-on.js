// Figure 7 (design.md §10): a file-appears condition detected by Vigil (a command wait at the 5 s
// floor, and a waitpoint signalled by a spool file drop) vs `wait-on` (npm, default 250 ms
// polling), 50 trials each in the same run: detection latency and CPU.
import { spawn } from "node:child_process";
import { mkdtempSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cpuSeconds, Daemon, quantile, ROOT, sleep, summary, waitUntil } from "./lib.js";

const TRIALS = Number(process.env.BENCH_PEER_TRIALS ?? 50);
const spread = () => 500 + Math.random() * 4500; // each file appears 0.5–5 s after arming

async function waitOn() {
  const dir = mkdtempSync(join(tmpdir(), "vigil-peer-"));
  const latencies = [];
  let cpu = 0;
  const trials = Array.from({ length: TRIALS }, async (_, i) => {
    const file = join(dir, `f${i}`);
    const child = spawn(join(ROOT, "node_modules/.bin/wait-on"), [`file:${file}`], { stdio: "ignore" });
    await sleep(300); // started and polling
    await sleep(spread());
    writeFileSync(file, "");
    const created = performance.now();
    let last = 0;
    const poll = setInterval(() => {
      last = cpuSeconds(child.pid) || last;
    }, 50);
    await new Promise((resolve) => child.once("exit", resolve));
    clearInterval(poll);
    latencies.push(performance.now() - created);
    cpu += last;
  });
  await Promise.all(trials);
  return { latencies, cpuPerTrial: cpu / TRIALS };
}

async function vigilCommandWait(daemon) {
  const dir = mkdtempSync(join(tmpdir(), "vigil-peer-"));
  const cpu0 = cpuSeconds(daemon.pid, true);
  const latencies = [];
  // Four command waits per session at most: the sessions first, then every wait at once.
  for (let s = 0; s < Math.ceil(TRIALS / 4); s++) await daemon.api("POST", "/api/sessions", { id: `peer-${s}` });
  await Promise.all(
    Array.from({ length: TRIALS }, async (_, i) => {
      const sid = `peer-${Math.floor(i / 4)}`;
      const made = await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
        source: { kind: "command", command: `test -f ${dir}/f${i}` },
        intervalSeconds: 5,
      });
      if (made.status !== 201) throw new Error(`arming a command wait failed: ${JSON.stringify(made.body)}`);
      await sleep(spread());
      writeFileSync(join(dir, `f${i}`), "");
      const created = Date.now();
      const ended = await waitUntil(
        async () => (await daemon.api("GET", `/api/sessions/${sid}/monitors/${made.body.id}`)).body.ending,
        { timeoutMs: 20_000, everyMs: 50 },
      );
      latencies.push(Date.parse(ended.at) - created);
    }),
  );
  return { latencies, cpuPerTrial: (cpuSeconds(daemon.pid, true) - cpu0) / TRIALS };
}

async function vigilSpool(daemon) {
  await daemon.api("POST", "/api/sessions", { id: "peer-spool" });
  const spool = join(daemon.home, "tmp", "signals");
  const cpu0 = cpuSeconds(daemon.pid, true);
  const latencies = [];
  await Promise.all(
    Array.from({ length: TRIALS }, async (_, i) => {
      const w = (await daemon.api("POST", "/api/sessions/peer-spool/waitpoints", { label: `f${i}`, intent: "peer" }))
        .body;
      await sleep(spread());
      writeFileSync(join(spool, `peer-${i}.tmp`), JSON.stringify({ id: w.id, secret: w.secret, status: "ok" }));
      renameSync(join(spool, `peer-${i}.tmp`), join(spool, `peer-${i}.json`));
      const created = Date.now();
      const ended = await waitUntil(
        async () => (await daemon.api("GET", `/api/sessions/peer-spool/monitors/${w.id}`)).body.ending,
        { timeoutMs: 20_000, everyMs: 20 },
      );
      latencies.push(Date.parse(ended.at) - created);
    }),
  );
  return { latencies, cpuPerTrial: (cpuSeconds(daemon.pid, true) - cpu0) / TRIALS };
}

export async function run() {
  const daemon = await new Daemon().start();
  const peer = await waitOn();
  const command = await vigilCommandWait(daemon);
  const spool = await vigilSpool(daemon);
  await daemon.dispose();
  const ms = (s) => `${(s * 1000).toFixed(1)} ms CPU per trial`;
  const p50 = (r) => quantile(r.latencies, 0.5);
  console.log(
    "peer: wait-on also waits out its default 750 ms stability window; alone it detects in ~0.8 s — here 50 run at once, one Node process each, as 50 waits would",
  );
  console.log(
    `peer: wait-on (250 ms polling, one process per wait): detection ${summary(peer.latencies)}, ${ms(peer.cpuPerTrial)}`,
  );
  console.log(
    `peer: vigil command wait (5 s floor): detection ${summary(command.latencies)}, ${ms(command.cpuPerTrial)} → latency ${(p50(command) / p50(peer)).toFixed(1)}× wait-on's, CPU ${(command.cpuPerTrial / peer.cpuPerTrial).toFixed(2)}×`,
  );
  console.log(
    `peer: vigil waitpoint via spool file (the job signals): detection ${summary(spool.latencies)}, ${ms(spool.cpuPerTrial)} → latency ${(p50(spool) / p50(peer)).toFixed(3)}× wait-on's, CPU ${(spool.cpuPerTrial / peer.cpuPerTrial).toFixed(2)}×`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
