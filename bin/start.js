#!/usr/bin/env node
// `npm start`: builds the browser extension when it is missing, says where to load it, then runs
// `vigil serve` in the foreground on the default home.
// Design: docs/design.md §1.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const extension = join(root, ".output", "chrome-mv3");
if (!existsSync(join(extension, "manifest.json"))) {
  process.stderr.write("Building the browser extension (once)…\n");
  const built = spawnSync(process.execPath, [join(root, "node_modules", "wxt", "bin", "wxt.mjs"), "build"], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
  });
  if (built.status !== 0)
    process.stderr.write(
      "The extension did not build (run `npm run build:ext` to see why); the daemon starts anyway.\n",
    );
}
if (existsSync(join(extension, "manifest.json"))) {
  process.stderr.write(
    `Browser extension: chrome://extensions → Developer mode → Load unpacked → ${extension}\n` +
      "Then, once: npx vigil install   (lets the extension reach this daemon; npx vigil doctor checks it)\n",
  );
}
const { main } = await import("../dist/native-host/src/cli/main.js");
await main([process.argv[0], process.argv[1], "serve", ...process.argv.slice(2)]);
