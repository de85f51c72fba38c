/**
 * The npm package, as a user gets it (#39): `npm pack` in a copy of the checkout (its `prepack`
 * builds the daemon and zips the extension), then `npm install -g --omit=dev` of the tarball into a
 * temp prefix with a temp HOME — no checkout on the path — and the README's quick start, `vigil
 * setup claude-code --dry-run` and `vigil install` run from what was installed.
 * Slow by nature: the pack builds (~1.5 min). better-sqlite3's install looks for its prebuilt binary
 * first (prebuild-install, which downloads it from the package's GitHub release, as a user's install
 * does) and compiles only when none is found; this machine reaches no GitHub, so the test serves it
 * the binary the checkout's own install made, under the release's file name, from a local folder
 * (`npm_config_better_sqlite3_local_prebuilds`). Compiling it again cost 1.5–4 min and proved
 * nothing of Vigil's.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, expect, test } from "vitest";
import { TestBrowser } from "../helpers/browser.js";
import { ROOT, TestDaemon, untilCli, waitFor } from "../helpers/daemon.js";

const work = mkdtempSync(join(tmpdir(), "vigil-package-"));
const checkout = join(work, "checkout");
const prefix = join(work, "prefix");
const home = join(work, "home");
const installed = join(prefix, "lib", "node_modules", "vigil");
const vigil = join(installed, "bin", "vigil.js");
/** What the checkout builds or caches: a copy starts without them, as a fresh clone does. */
const NOT_COPIED = new Set(["node_modules", "dist", ".output", ".wxt", ".git", "coverage", ".vigil-test"]);
const prebuilds = join(work, "prebuilds");

/**
 * better-sqlite3's release asset for this Node, made of the checkout's compiled binary: the name
 * prebuild-install asks for (`{name}-v{version}-node-v{abi}-{platform}-{arch}.tar.gz`) holding
 * `build/Release/better_sqlite3.node`.
 */
async function servePrebuild(): Promise<void> {
  const source = join(ROOT, "node_modules", "better-sqlite3");
  const { version } = JSON.parse(readFileSync(join(source, "package.json"), "utf8")) as { version: string };
  const asset = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  mkdirSync(prebuilds);
  await execa("tar", ["czf", join(prebuilds, asset), "-C", source, "build/Release/better_sqlite3.node"]);
}

let tarball = "";
let files: string[] = [];
let daemon: TestDaemon | null = null;
let browser: TestBrowser | null = null;

/**
 * npm as the user runs it, with this test's HOME, its own cache and the machine's npm config (its
 * registry, CA and `nodedir`, which better-sqlite3's compile needs). Nothing of the npm that runs
 * this test leaks in: under `npm test`, its npm_* variables (npm_config_local_prefix…) would point
 * the inner npm at the real checkout.
 */
async function npm(args: string[], cwd: string) {
  const { stdout: userconfig } = await execa("npm", ["config", "get", "userconfig"]);
  const outside = Object.entries(process.env).filter(([name]) => !/^(npm_|INIT_CWD$)/i.test(name));
  return execa("npm", args, {
    cwd,
    reject: false,
    all: true,
    extendEnv: false,
    env: {
      ...Object.fromEntries(outside),
      HOME: home,
      npm_config_userconfig: userconfig.trim(),
      npm_config_cache: join(work, "npm-cache"),
      npm_config_better_sqlite3_local_prebuilds: prebuilds,
    },
  });
}

beforeAll(async () => {
  mkdirSync(home);
  for (const name of readdirSync(ROOT))
    if (!NOT_COPIED.has(name)) cpSync(join(ROOT, name), join(checkout, name), { recursive: true });
  // The dev tools the pack builds with; a symlink, so the copy costs no install.
  symlinkSync(join(ROOT, "node_modules"), join(checkout, "node_modules"));

  const packed = await npm(["pack", "--pack-destination", work], checkout);
  expect(packed.exitCode, packed.all).toBe(0);
  tarball = join(work, packed.stdout.trim().split("\n").at(-1) as string);
  const listing = await execa("tar", ["tzf", tarball]);
  files = listing.stdout.split("\n").map((line) => line.replace(/^package\//, ""));

  await servePrebuild();
  const started = Date.now();
  const install = await npm(
    ["install", "-g", "--prefix", prefix, "--omit=dev", "--allow-scripts=vigil,better-sqlite3", tarball],
    work,
  );
  expect(install.exitCode, install.all).toBe(0);
  const compiled = existsSync(join(installed, "node_modules", "better-sqlite3", "build", "Release", "obj"));
  process.stderr.write(
    `package test: installed ${tarball} in ${Math.round((Date.now() - started) / 1000)} s (better-sqlite3 ${compiled ? "compiled" : "from its prebuilt binary"})\n`,
  );
});

afterAll(async () => {
  await browser?.close();
  await daemon?.dispose();
  rmSync(work, { recursive: true, force: true });
});

test("the tarball holds what runs and no tests, under 5 MB", () => {
  const size = statSync(tarball).size;
  process.stderr.write(`package test: ${tarball} is ${(size / 1e6).toFixed(2)} MB, ${files.length} files\n`);
  expect(size).toBeLessThan(5_000_000);
  expect(files).toEqual(
    expect.arrayContaining([
      "package.json",
      "README.md",
      "LICENSE",
      "bin/vigil.js",
      "bin/build-spawner.js",
      "dist/native-host/src/cli/main.js",
      "native-host/spawner/spawner.c",
      // Read at run time from the package root: the store's migrations (native-host/src/store/db.ts).
      "native-host/src/store/migrations/0001_init.sql",
      "native-host/src/store/pg/migrations/0001_init.sql",
      "manifest-templates/chromium.json",
      "manifest-templates/firefox.json",
      ".output/chrome-mv3/manifest.json",
      ".output/firefox-mv3/manifest.json",
      ".output/vigil-0.1.0-chrome.zip",
      ".output/vigil-0.1.0-firefox.zip",
      "docs/reference.md",
    ]),
  );
  const unwanted = files.filter(
    (file) =>
      /(^|\/)(test|tests|__tests__|fixtures)\//.test(file) ||
      /\.(test|spec|contract)\.[cm]?[jt]s$/.test(file) ||
      /\.[cm]?ts$/.test(file) ||
      file.endsWith(".map") ||
      file.startsWith("node_modules/") ||
      file === "dist/vigil-spawner" ||
      file.endsWith("-sources.zip"),
  );
  expect(unwanted).toEqual([]);
});

test("installed with --omit=dev: runtime dependencies only, the spawner built here, vigil --version", async () => {
  const deps = readdirSync(join(installed, "node_modules"));
  expect(deps).toContain("better-sqlite3");
  for (const devTool of ["wxt", "vitest", "typescript", "puppeteer", "@biomejs"]) expect(deps).not.toContain(devTool);
  const cc = await execa("cc", ["--version"], { reject: false });
  // The install compiled the helper when a compiler works; without one it is absent and checks spawn.
  expect(existsSync(join(installed, "dist", "vigil-spawner"))).toBe(cc.exitCode === 0);
  // npm ran no `prepare` (a build would have replaced dist/, with source maps the tarball leaves out).
  const maps = readdirSync(join(installed, "dist"), { recursive: true }).filter((f) => String(f).endsWith(".map"));
  expect(maps).toEqual([]);

  const version = await execa(join(prefix, "bin", "vigil"), ["--version"], { env: { HOME: home }, reject: false });
  expect(version.exitCode, version.stderr).toBe(0);
  expect(version.stdout.trim()).toBe("0.1.0");
});

test("the README's quick start from the installed package: wait, met, read", async () => {
  daemon = await TestDaemon.start({ bin: vigil, env: { HOME: home } });
  const cwd = mkdtempSync(join(work, "project-"));
  const armed = await daemon.cli(
    ["wait", "--until", "5", "--description", "readiness marker", "--", "test", "-f", "ready.flag"],
    {
      cwd,
    },
  );
  expect(armed.exitCode, String(armed.stderr)).toBe(0);
  expect(String(armed.stdout).trim()).toBe("mon-1");
  await execa("touch", [join(cwd, "ready.flag")]);
  const listed = await untilCli(
    async () => {
      const ls = String((await daemon?.cli(["ls"]))?.stdout ?? "");
      return /mon-1 .*met/.test(ls) ? ls : null;
    },
    { timeoutMs: 30_000, what: "mon-1 met in vigil ls" },
  );
  expect(listed).toContain("readiness marker");
  const inbox = await daemon.cli(["inbox"]);
  expect(inbox.exitCode, String(inbox.stderr)).toBe(0);
  expect(String(inbox.stdout)).toContain("readiness marker");
});

test("vigil setup claude-code --dry-run from the installed package names it and writes nothing", async () => {
  const setup = await execa(join(prefix, "bin", "vigil"), ["setup", "claude-code", "--dry-run"], {
    env: { HOME: home },
    reject: false,
  });
  expect(setup.exitCode, setup.stderr).toBe(0);
  expect(setup.stdout).toContain(`exec ${process.execPath} ${vigil} "$@"`);
  expect(setup.stdout).toContain(join(home, ".claude", "settings.json"));
  expect(existsSync(join(home, ".claude"))).toBe(false);
});

test("vigil install and doctor find the extension folders inside the installed package", async () => {
  const profile = join(work, "chromium-profile");
  const install = await execa(
    join(prefix, "bin", "vigil"),
    ["--home", join(work, "vigil-home"), "install", "--browser", "chromium", "--user-data-dir", profile],
    { env: { HOME: home }, reject: false },
  );
  expect(install.exitCode, install.stderr).toBe(0);
  const chrome = join(installed, ".output", "chrome-mv3");
  expect(install.stdout).toContain(`Load unpacked → ${chrome}`);
  expect(existsSync(join(chrome, "manifest.json"))).toBe(true);

  const doctor = await execa(
    join(prefix, "bin", "vigil"),
    ["--home", join(work, "vigil-home"), "doctor", "--browser", "firefox"],
    { env: { HOME: home }, reject: false },
  );
  expect(doctor.stdout).toContain(`Firefox extension built at ${join(installed, ".output", "firefox-mv3")}`);
});

test("from the installed package alone: Chromium loads its extension folder, reaches the daemon, and vigil doctor is all ok", async () => {
  if (!daemon) throw new Error("Expected the quick start's daemon (started from the installed package) to run");
  const run = (args: string[]) =>
    execa(join(prefix, "bin", "vigil"), ["--home", daemon?.home as string, ...args], {
      env: { HOME: home },
      reject: false,
    });
  // As the README says: `vigil install`, then load the folder it names.
  const install = await run(["install", "--browser", "chromium"]);
  expect(install.exitCode, install.stderr).toBe(0);
  const folder = join(installed, ".output", "chrome-mv3");
  expect(install.stdout).toContain(`Load unpacked → ${folder}`);
  // The test's browser runs in its own profile: the host manifest goes there too (same launcher).
  browser = await TestBrowser.launch(async (profile) => {
    const per = await run(["install", "--browser", "chromium", "--user-data-dir", profile]);
    expect(per.exitCode, per.stderr).toBe(0);
  }, folder);
  await waitFor(async () => ((await browser?.linkStatus()) === "connected" ? true : null), {
    timeoutMs: 30_000,
    what: "the package's extension connected to the package's daemon through its native host",
  });

  const doctor = await run(["doctor", "--json"]);
  const report = JSON.parse(doctor.stdout) as { ok: boolean; findings: { ok: boolean; what: string }[] };
  expect(report.findings.filter((finding) => !finding.ok)).toEqual([]);
  expect(report.ok).toBe(true);
  expect(doctor.exitCode).toBe(0);
  const said = report.findings.map((finding) => finding.what).join("\n");
  expect(said).toContain(`launcher ${join(daemon.home, "native-host")} runs ${vigil}`);
  expect(said).toContain(`extension built at ${folder}`);
});
