// `npm run bench`: every figure in one run, each printed beside what it is compared with.
// Figures come from this machine as it is (shared, noisy): read medians and ratios, not absolutes.
import { cpus, totalmem } from "node:os";
import { run as browserObserve } from "./browser-observe.js";
import { run as commandWaits } from "./command-waits.js";
import { run as deviceLatency } from "./device-latency.js";
import { run as peer } from "./peer-wait-on.js";
import { run as restartIdle } from "./restart-idle.js";
import { run as schedulerLag } from "./scheduler-lag.js";
import { run as signals } from "./signals.js";
import { run as spawnCost } from "./spawn-cost.js";
import { run as team } from "./team.js";

console.log(
  `vigil bench · ${new Date().toISOString()} · node ${process.version} · ${cpus().length} cores · ${(totalmem() / 2 ** 30).toFixed(0)} GiB`,
);
console.log("\n# signals (ingest, signal → delivery, spool)");
await signals();
console.log("\n# device drop → wake over SSH, with inotifywait and with the 1 s poll (issue #16; needs root and sshd)");
await deviceLatency();
console.log("\n# idle cost and restart");
await restartIdle();
console.log("\n# scheduler lag (the issue's 1,000 waits, and 200 to show the unsaturated case)");
await spawnCost();
await schedulerLag(1000);
await schedulerLag(200);
console.log("\n# 1,000 command waits vs 1,000 shell loops, same run (issue #19)");
await commandWaits();
console.log("\n# peer, same run: a file appears (vigil vs wait-on)");
await peer();
console.log("\n# browser observe round trip (real Chromium + the built extension)");
await browserObserve();
console.log("\n# team mode: three daemons on one PostgreSQL (issue #27; a throwaway cluster, needs root)");
await team();
