/**
 * The built extensions' manifests: the Chromium one carries the key (stable id) and the side panel;
 * the Firefox one builds (sidebar, gecko id, no key). `npm test` builds Chromium's before running.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { EXTENSION_KEY, GECKO_ID } from "../../shared/extension-identity.js";
import { ROOT } from "../helpers/daemon.js";

const manifest = (dir: string) => JSON.parse(readFileSync(join(ROOT, ".output", dir, "manifest.json"), "utf8"));

test("the Chromium build carries the key, the side panel and only the permissions it uses", () => {
  const chrome = manifest("chrome-mv3");
  expect(chrome.manifest_version).toBe(3);
  expect(chrome.key).toBe(EXTENSION_KEY);
  expect(chrome.side_panel).toEqual({ default_path: "sidepanel.html" });
  expect(chrome.background).toEqual({ service_worker: "background.js" });
  expect([...chrome.permissions].sort()).toEqual(
    ["alarms", "nativeMessaging", "notifications", "scripting", "sidePanel", "storage", "tabs"].sort(),
  );
  expect(chrome.host_permissions).toEqual(["http://localhost/*", "http://127.0.0.1/*"]);
});

test("npm run build:ext:firefox builds a sidebar extension with the gecko id and no key", () => {
  execFileSync(
    process.execPath,
    [join(ROOT, "node_modules", "wxt", "bin", "wxt.mjs"), "build", "-b", "firefox", "--mv3"],
    {
      cwd: ROOT,
      stdio: "ignore",
    },
  );
  const firefox = manifest("firefox-mv3");
  expect(firefox.browser_specific_settings.gecko.id).toBe(GECKO_ID);
  expect(firefox.sidebar_action).toMatchObject({ default_panel: "sidepanel.html" });
  expect(firefox.key).toBeUndefined();
  expect(firefox.permissions).not.toContain("sidePanel");
  expect(firefox.permissions).toContain("nativeMessaging");
});
