#!/usr/bin/env node
// The `vigil` command: runs the compiled CLI. It never builds (npm install builds it, `npm run build`
// rebuilds; bin/prepare.js keeps `npx vigil` from building too).
// Design: docs/design.md §7.
import { existsSync } from "node:fs";

const entry = new URL("../dist/native-host/src/cli/main.js", import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write("vigil: not built yet. Run `npm install` (or `npm run build`) in the Vigil checkout.\n");
  process.exit(1);
}
const { main } = await import(entry.href);
await main(process.argv);
