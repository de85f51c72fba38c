/** `vigil install`, `uninstall` and `doctor` against a throwaway $HOME and a real daemon. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { EXTENSION_ID } from "../../shared/extension-identity.js";
import { BIN, TestDaemon } from "../helpers/daemon.js";

/** How doctor names the CLI here: this HOME has no launcher and PATH no `vigil`, so the checkout's bin. */
const VIGIL = BIN;

let daemon: TestDaemon;
const home = mkdtempSync(join(tmpdir(), "vigil-user-"));
const chromium = join(home, ".config", "chromium", "NativeMessagingHosts", "dev.vigil.host.json");

beforeAll(async () => {
  daemon = await TestDaemon.start({ env: { HOME: home } });
});
afterAll(async () => {
  await daemon.dispose();
  rmSync(home, { recursive: true, force: true });
});

test("install writes a manifest only for the browsers this machine has, naming the extension and an absolute launcher", async () => {
  // No browser profile is a failure to say how to fix (exit 1), not a usage mistake (exit 2).
  const none = await daemon.cli(["install"]);
  expect(none.exitCode).toBe(1);
  expect(String(none.stderr)).toContain("vigil install --browser chromium");

  mkdirSync(join(home, ".config", "chromium"), { recursive: true });
  const installed = await daemon.cli(["install"]);
  expect(installed.exitCode, String(installed.stderr)).toBe(0);
  expect(String(installed.stdout)).toContain(`chromium: wrote ${chromium}`);
  expect(String(installed.stdout)).not.toContain("firefox");
  const manifest = JSON.parse(readFileSync(chromium, "utf8"));
  expect(manifest).toEqual({
    name: "dev.vigil.host",
    description: expect.any(String),
    path: join(daemon.home, "native-host"),
    type: "stdio",
    allowed_origins: [`chrome-extension://${EXTENSION_ID}/`],
  });
  expect(statSync(manifest.path).mode & 0o111).not.toBe(0);
  expect(readFileSync(manifest.path, "utf8")).toContain(`--home '${daemon.home}' native-host "$@"`);

  const profile = join(home, "profile");
  expect((await daemon.cli(["install", "--browser", "chromium", "--user-data-dir", profile])).exitCode).toBe(0);
  expect(JSON.parse(readFileSync(join(profile, "NativeMessagingHosts", "dev.vigil.host.json"), "utf8")).path).toBe(
    manifest.path,
  );
  const firefoxProfile = await daemon.cli(["install", "--browser", "firefox", "--user-data-dir", profile]);
  expect(firefoxProfile.exitCode).toBe(2);
  expect(String(firefoxProfile.stderr)).toContain("Firefox has no per-profile folder");
});

test("doctor says what is fine and exactly what to fix", async () => {
  const report = await daemon.cli(["doctor"]);
  const out = String(report.stdout);
  expect(out).toContain(
    `ok   daemon (pid ${daemon.child?.pid}) answers /api/status on ${join(daemon.home, "api.sock")}`,
  );
  expect(out).toContain(`ok   chromium: ${chromium} allows the Vigil extension`);
  // No browser is connected in this test: that is the one thing to fix, so the exit code is 1.
  expect(out).toContain("FIX  no browser is connected to the daemon");
  expect(report.exitCode).toBe(1);

  writeFileSync(
    chromium,
    JSON.stringify({ ...JSON.parse(readFileSync(chromium, "utf8")), allowed_origins: ["chrome-extension://other/"] }),
  );
  const wrongId = String((await daemon.cli(["doctor", "--browser", "chromium"])).stdout);
  expect(wrongId).toContain(`does not allow the Vigil extension (chrome-extension://${EXTENSION_ID}/)`);
  expect(wrongId).toContain(`→ ${VIGIL} install --browser chromium`);
});

test("doctor --browser firefox names what is missing: the manifest, the add-on id it allows, site permissions", async () => {
  const firefox = join(home, ".mozilla", "native-messaging-hosts", "dev.vigil.host.json");
  const missing = String((await daemon.cli(["doctor", "--browser", "firefox"])).stdout);
  expect(missing).toContain(`FIX  firefox: ${firefox} is missing → ${VIGIL} install --browser firefox`);
  expect(missing).toMatch(
    /ok {3}Firefox extension built at .*firefox-mv3 \(vigil@vigil\.dev\); load it from about:debugging/,
  );
  expect(missing).toContain("other sites need about:addons → Vigil → Permissions");
  expect(missing).not.toContain("chrome-mv3");

  expect((await daemon.cli(["install", "--browser", "firefox"])).exitCode).toBe(0);
  expect(String((await daemon.cli(["doctor", "--browser", "firefox"])).stdout)).toContain(
    `ok   firefox: ${firefox} allows the Vigil extension`,
  );
  writeFileSync(firefox, JSON.stringify({ ...JSON.parse(readFileSync(firefox, "utf8")), allowed_extensions: ["x@y"] }));
  expect(String((await daemon.cli(["doctor", "--browser", "firefox"])).stdout)).toContain(
    `FIX  firefox: ${firefox} does not allow the Vigil extension (vigil@vigil.dev) → ${VIGIL} install --browser firefox`,
  );
  rmSync(firefox);
});

test("uninstall removes Vigil's manifests and leaves another program's alone", async () => {
  const chrome = join(home, ".config", "google-chrome", "NativeMessagingHosts", "dev.vigil.host.json");
  mkdirSync(join(chrome, ".."), { recursive: true });
  writeFileSync(chrome, JSON.stringify({ name: "someone.else" }));
  const removed = await daemon.cli(["uninstall"]);
  expect(removed.exitCode).toBe(0);
  expect(String(removed.stdout)).toContain(`chromium: removed ${chromium}`);
  expect(String(removed.stdout)).toContain("chrome: not Vigil's; left alone");
  expect(() => statSync(chromium)).toThrow();
  expect(readFileSync(chrome, "utf8")).toContain("someone.else");
});
