/**
 * bin/build-spawner.js, which package.json's `install` runs when the package is installed: with a
 * working compiler it builds dist/vigil-spawner; without one it says so in one line and exits 0, so
 * an install never fails for it (the daemon then spawns command checks itself).
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, expect, test } from "vitest";
import { ROOT } from "../helpers/daemon.js";

const work = mkdtempSync(join(tmpdir(), "vigil-build-spawner-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The two files an installed package has of it: the script and the C source. */
function packageLayout(name: string): string {
  const root = join(work, name);
  mkdirSync(join(root, "bin"), { recursive: true });
  mkdirSync(join(root, "native-host", "spawner"), { recursive: true });
  copyFileSync(join(ROOT, "bin", "build-spawner.js"), join(root, "bin", "build-spawner.js"));
  copyFileSync(join(ROOT, "native-host", "spawner", "spawner.c"), join(root, "native-host", "spawner", "spawner.c"));
  return root;
}

const run = (root: string, env: Record<string, string>) =>
  execa(process.execPath, [join(root, "bin", "build-spawner.js")], { env, reject: false, cwd: work });

test("without a working compiler: one line saying so, exit 0, no helper", async () => {
  const root = packageLayout("no-cc");
  const result = await run(root, { CC: join(work, "no-such-cc") });
  expect(result.exitCode).toBe(0);
  expect(result.stderr).toMatch(
    /^vigil: no working C compiler \(spawnSync .*no-such-cc ENOENT\), so dist\/vigil-spawner was not built: command checks will spawn from the daemon, at more CPU each$/,
  );
  expect(existsSync(join(root, "dist", "vigil-spawner"))).toBe(false);
});

test("with the machine's cc: dist/vigil-spawner is built, silently", async () => {
  const cc = await execa("cc", ["--version"], { reject: false });
  if (cc.exitCode !== 0) throw new Error("This test needs a C compiler (cc): apt-get install build-essential");
  const root = packageLayout("cc");
  const result = await run(root, {});
  expect(result.exitCode).toBe(0);
  expect(result.stderr).toBe("");
  expect(existsSync(join(root, "dist", "vigil-spawner"))).toBe(true);
});
