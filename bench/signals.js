// Figures 2, 3 and 4 (design.md §10): signal ingest on /webhook/signal beside node:http with one
// insert and with no work (bench/ingest.js); signal → delivery start for a one-shot waitpoint on a
// long-poll claim; spool file → wake ready.
// `node bench/signals.js` prints all three; `node bench/signals.js ingest` (`npm run bench:ingest`)
// the ingest figure alone.
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { poster } from "./http-client.js";
import { ingest } from "./ingest.js";
import { Daemon, fmt, quantile, summary } from "./lib.js";

export { ingest };

/** Figures 3 and 4: signal → delivery start, spool file → wake delivered. */
async function delivery() {
  const daemon = await new Daemon().start();

  // ---- signal → delivery start (long-poll claim answered)
  await daemon.api("POST", "/api/sessions", { id: "latency" });
  const client = poster(`${daemon.url}/webhook/signal`, { connections: 2 });
  const toDelivery = [];
  for (let i = 0; i < 1000; i++) {
    const w = (
      await daemon.api("POST", "/api/sessions/latency/waitpoints", { label: `one-shot ${i}`, intent: "bench" })
    ).body;
    const claim = daemon.api("POST", "/api/sessions/latency/wakes/claim?wait=10");
    await new Promise((resolve) => setTimeout(resolve, 1)); // the claim is waiting
    const sent = performance.now();
    const [, claimed] = await Promise.all([client.post({ id: w.id, secret: w.secret, status: "ok" }), claim]);
    const done = performance.now();
    if (claimed.body.wakes.length === 1) toDelivery.push(done - sent);
  }
  client.close();
  console.log(
    `signal → delivery start (one-shot waitpoint, inbox long-poll claim): ${summary(toDelivery)} (goal p50 < 5 ms)`,
  );

  // ---- spool pickup
  await daemon.api("POST", "/api/sessions", { id: "spool" });
  const spool = join(daemon.home, "tmp", "signals");
  const pickup = [];
  for (let i = 0; i < 200; i++) {
    const w = (await daemon.api("POST", "/api/sessions/spool/waitpoints", { label: `drop ${i}`, intent: "bench" }))
      .body;
    const claim = daemon.api("POST", "/api/sessions/spool/wakes/claim?wait=10");
    await new Promise((resolve) => setTimeout(resolve, 1));
    const name = `bench-${i}-${process.pid}`;
    writeFileSync(join(spool, `${name}.tmp`), JSON.stringify({ id: w.id, secret: w.secret, status: "ok" }));
    const dropped = performance.now();
    renameSync(join(spool, `${name}.tmp`), join(spool, `${name}.json`));
    const claimed = await claim;
    if (claimed.body.wakes.length === 1) pickup.push(performance.now() - dropped);
  }
  console.log(
    `spool file renamed in → wake delivered: ${summary(pickup)} (goal p50 < 100 ms; the seed's 30 s sweep alone averages ${fmt(15_000)}, ${(15_000 / quantile(pickup, 0.5)).toFixed(0)}× the median here)`,
  );
  await daemon.dispose();
}

export async function run() {
  await ingest();
  await delivery();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv[2] === "ingest") await ingest();
  else await run();
}
