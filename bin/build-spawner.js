#!/usr/bin/env node
// Compiles the checks' helper, native-host/spawner/spawner.c → dist/vigil-spawner, with the machine's
// C compiler ($CC, else cc). `npm run build` runs it in a checkout, and package.json's `install`
// script when the package itself is installed (the tarball ships the source, not a binary built
// elsewhere). Without a working compiler it says so in one line and exits 0: never fail an install
// for it, the daemon then spawns command checks itself (native-host/src/probes/run-shell.ts).
// Design: docs/design.md §3, §7.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "native-host", "spawner", "spawner.c");
const target = join(root, "dist", "vigil-spawner");
const compiler = process.env.CC || "cc";

if (!existsSync(source)) {
  process.stderr.write(`vigil: ${source} is missing, so dist/vigil-spawner was not built\n`);
  process.exit(0);
}
mkdirSync(dirname(target), { recursive: true });
const built = spawnSync(compiler, ["-O2", "-o", target, source], { stdio: ["ignore", "ignore", "pipe"] });
if (built.status !== 0) {
  const why = built.error ? built.error.message : `${compiler} exited with ${built.status ?? built.signal}`;
  process.stderr.write(
    `vigil: no working C compiler (${why}), so dist/vigil-spawner was not built: command checks will spawn from the daemon, at more CPU each\n`,
  );
}
