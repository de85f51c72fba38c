import { homedir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { isTemporaryPathEntry, isUnderNpx, userPathEntries, vigilCommand } from "./how-to-run.js";

test("npm's per-command PATH entries are not the user's; the user's own are", () => {
  const env = { npm_config_cache: "/var/cache/npm", PATH: "" };
  for (const dir of [
    join(homedir(), ".npm", "_npx", "556c119dfcb36933", "node_modules", ".bin"),
    "/var/cache/npm/_npx/1/node_modules/.bin",
    "/work/project/node_modules/.bin",
    "/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin",
  ])
    expect(isTemporaryPathEntry(dir, env), dir).toBe(true);
  for (const dir of [join(homedir(), ".local", "bin"), "/usr/local/bin", "/home/u/.nvm/versions/node/v20/bin"])
    expect(isTemporaryPathEntry(dir, env), dir).toBe(false);
  expect(
    userPathEntries({ PATH: `/p/node_modules/.bin:${homedir()}/.npm/_npx/a/node_modules/.bin:/usr/bin:` }),
  ).toEqual(["/usr/bin"]);
});

test("npx vigil is told apart from a process that only inherits npx's environment", () => {
  const npx = join(homedir(), ".npm", "_npx", "556c119dfcb36933", "node_modules", ".bin", "vigil");
  expect(isUnderNpx({ npm_command: "exec" }, npx)).toBe(true);
  expect(isUnderNpx({}, npx)).toBe(true);
  expect(isUnderNpx({ npm_command: "exec" }, "/work/project/node_modules/.bin/vigil")).toBe(true);
  expect(isUnderNpx({ npm_command: "exec" }, "/work/vigil/bin/vigil.js")).toBe(false);
  expect(isUnderNpx({}, "/work/project/node_modules/.bin/vigil")).toBe(false);
  expect(vigilCommand({ npm_command: "exec", PATH: "" }, npx)).toBe("npx vigil");
});
