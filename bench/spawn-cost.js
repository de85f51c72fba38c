// Why command checks spawn with node:child_process rather than execa: the daemon's own CPU per
// spawn of `sh -c false` (the check's child not counted), both ways in the same run, from a
// process holding ~100 MB as the daemon does under load; and, as the machine's bare limit, how long
// a shell loop takes to start the same process (no Node at all).
import { execFileSync, spawn } from "node:child_process";
import { execa } from "execa";
import { quantile } from "./lib.js";

const N = Number(process.env.BENCH_SPAWN_N ?? 300);

async function measure(spawnOnce) {
  const perSpawn = [];
  for (let block = 0; block < 6; block++) {
    const before = process.cpuUsage();
    for (let i = 0; i < N / 6; i++) await spawnOnce();
    const used = process.cpuUsage(before);
    perSpawn.push((used.user + used.system) / 1000 / (N / 6));
  }
  return quantile(perSpawn, 0.5);
}

export async function run() {
  const ballast = Array.from({ length: 250_000 }, (_, i) => ({ i, text: `row ${i}`.repeat(8) }));
  const raw = () =>
    new Promise((resolve) => {
      const child = spawn("/bin/sh", ["-c", "false"], { stdio: ["ignore", "pipe", "pipe"], detached: true });
      child.stdout.resume();
      child.stderr.resume();
      child.once("close", resolve);
    });
  const viaExeca = () => execa("/bin/sh", ["-c", "false"], { reject: false, detached: true, all: true });
  await raw();
  await viaExeca();
  const bare = await measure(raw);
  const withExeca = await measure(viaExeca);
  const loops = 300;
  const t0 = performance.now();
  execFileSync("/bin/sh", ["-c", `i=0; while [ $i -lt ${loops} ]; do /bin/sh -c false; i=$((i+1)); done`]);
  const shellMs = (performance.now() - t0) / loops;
  console.log(
    `bare limit: a shell loop starts \`sh -c false\` in ${shellMs.toFixed(2)} ms each (${(1000 / shellMs).toFixed(0)} starts/s on one core)`,
  );
  console.log(
    `daemon CPU per command spawn (rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB, median of 6 blocks of ${N / 6}): ` +
      `node:child_process ${bare.toFixed(2)} ms · execa ${withExeca.toFixed(2)} ms (${(withExeca / bare).toFixed(1)}×)`,
  );
  return ballast.length;
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
