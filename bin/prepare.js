#!/usr/bin/env node
// package.json's `prepare`: `npm install` (and `npm ci`) in a checkout builds it, so that
// `npm install && npm start` works from a fresh clone. `npx vigil` in the checkout runs the same
// script — npm installs the checkout itself into its npx cache as a link, and npm runs a linked
// package's prepare — and there it builds nothing: running the CLI never rebuilds dist/ (a build
// deletes dist/ first, under any daemon that runs from it). npm names the command it runs in
// $npm_command: "install", "ci", "rebuild"… build; "exec" (npx, npm exec) does not, nor "pack" and
// "publish", whose `prepack` builds (with the extension's store zips) just before.
// npm never runs `prepare` for a package installed from a tarball or the registry: there the
// tarball's dist/ is used as it is, and only `install` (bin/build-spawner.js) runs.
// Design: docs/design.md §1, §7.
import { spawnSync } from "node:child_process";

if (["exec", "pack", "publish"].includes(process.env.npm_command ?? "")) process.exit(0);

const npm = process.env.npm_execpath;
const built = npm
  ? spawnSync(process.execPath, [npm, "run", "build"], { stdio: "inherit" })
  : spawnSync("npm", ["run", "build"], { stdio: "inherit", shell: true });
process.exit(built.status ?? 1);
