// Why command checks are started by dist/vigil-spawner: the daemon's own CPU per check of
// `test -f` (the check's child not counted), from a process holding ~160 MB as the daemon does
// under load, four ways in the same run: execa, node:child_process from the daemon (the fallback),
// runShell through the helper (the default), and for scale a small fresh Node process spawning the
// same; and, as the machine's bare limit, how long a shell loop takes to start the same process.
// For the helper, its own CPU (fork + poll, its reaped children not counted) is shown beside.
import { execFileSync, spawn } from "node:child_process";
import { join } from "node:path";
import { execa } from "execa";
import { cpuSeconds, quantile, ROOT } from "./lib.js";

const N = Number(process.env.BENCH_SPAWN_N ?? 1000);
const COMMAND = "test -f /nonexistent/vigil-bench";

async function measure(spawnOnce, helperPid) {
  const perSpawn = [];
  const helper = [];
  for (let block = 0; block < 6; block++) {
    const before = process.cpuUsage();
    const h0 = helperPid ? cpuSeconds(helperPid()) : 0;
    for (let i = 0; i < N / 6; i++) await spawnOnce();
    const used = process.cpuUsage(before);
    perSpawn.push((used.user + used.system) / 1000 / (N / 6));
    if (helperPid) helper.push(((cpuSeconds(helperPid()) - h0) * 1000) / (N / 6));
  }
  return { daemon: quantile(perSpawn, 0.5), helper: helperPid ? quantile(helper, 0.5) : 0 };
}

export async function run() {
  const { runShell, runShellDirect, currentSpawner } = await import(
    join(ROOT, "dist/native-host/src/probes/run-shell.js")
  );
  const ballast = Array.from({ length: 250_000 }, (_, i) => ({ i, text: `row ${i}`.repeat(8) }));
  const options = { cwd: "/tmp", timeoutMs: 5000 };
  const raw = () =>
    new Promise((resolve) => {
      const child = spawn("/bin/sh", ["-c", COMMAND], { stdio: ["ignore", "pipe", "pipe"], detached: true });
      child.stdout.resume();
      child.stderr.resume();
      child.once("close", resolve);
    });
  const viaExeca = () => execa("/bin/sh", ["-c", COMMAND], { reject: false, detached: true, all: true });
  const direct = () => runShellDirect(COMMAND, options);
  const helper = () => runShell(COMMAND, options);
  await raw();
  await viaExeca();
  await helper();
  const spawner = currentSpawner();
  const bare = await measure(raw);
  const withExeca = await measure(viaExeca);
  const fallback = await measure(direct);
  const helped = spawner ? await measure(helper, () => spawner.pid) : null;
  spawner?.stop();

  // A small fresh Node process doing the same spawns (option b: a Node helper).
  const small = `
    const { spawn } = await import("node:child_process");
    const one = () => new Promise((r) => { const c = spawn("/bin/sh", ["-c", ${JSON.stringify(COMMAND)}], { stdio: ["ignore","pipe","pipe"], detached: true }); c.stdout.resume(); c.stderr.resume(); c.once("close", r); });
    await one();
    const b = process.cpuUsage();
    for (let i = 0; i < ${N}; i++) await one();
    const u = process.cpuUsage(b);
    console.log(((u.user + u.system) / 1000 / ${N}).toFixed(3));`;
  const smallNode = Number(execFileSync(process.execPath, ["--input-type=module", "-e", small], { encoding: "utf8" }));

  const loops = 300;
  const t0 = performance.now();
  execFileSync("/bin/sh", ["-c", `i=0; while [ $i -lt ${loops} ]; do /bin/sh -c '${COMMAND}'; i=$((i+1)); done`]);
  const shellMs = (performance.now() - t0) / loops;
  console.log(
    `bare limit: a shell loop starts \`sh -c 'test -f …'\` in ${shellMs.toFixed(2)} ms each (${(1000 / shellMs).toFixed(0)} starts/s on one core)`,
  );
  console.log(
    `daemon CPU per command check (rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB, median of 6 blocks of ${Math.round(N / 6)}): ` +
      `execa ${withExeca.daemon.toFixed(2)} ms · node:child_process ${bare.daemon.toFixed(2)} ms · runShell direct (fallback) ${fallback.daemon.toFixed(2)} ms · ` +
      (helped
        ? `runShell via vigil-spawner ${helped.daemon.toFixed(2)} ms + helper ${helped.helper.toFixed(2)} ms = ${(helped.daemon + helped.helper).toFixed(2)} ms ` +
          `(${(fallback.daemon / (helped.daemon + helped.helper)).toFixed(1)}× less than the fallback)`
        : "vigil-spawner not built") +
      ` · a small fresh Node process spawning ${smallNode.toFixed(2)} ms`,
  );
  return ballast.length;
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
