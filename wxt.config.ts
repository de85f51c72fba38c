import { defineConfig } from "wxt";
import { EXTENSION_KEY, GECKO_ID } from "./shared/extension-identity";

// The browser extension (Manifest V3): entrypoints in extension/entrypoints, logic in extension/lib.
// `npm run build:ext` → .output/chrome-mv3/, `npm run build:ext:firefox` → .output/firefox-mv3/.
export default defineConfig({
  srcDir: "extension",
  outDir: ".output",
  publicDir: "extension/public",
  manifest: ({ browser }) => ({
    name: "Vigil",
    description: "See, pause, resume and cancel the monitors your AI agents are waiting on.",
    permissions: [
      "nativeMessaging",
      "scripting",
      "tabs",
      "storage",
      "alarms",
      // A notification when something newly needs the person (issue #26; off in the panel's settings).
      "notifications",
      ...(browser === "firefox" ? [] : ["sidePanel"]),
    ],
    // Observe may read pages on these hosts. Localhost covers local CI dashboards and the tests;
    // add the hosts of the pages you want watched (README, "Which sites the extension can read").
    host_permissions: ["http://localhost/*", "http://127.0.0.1/*"],
    optional_host_permissions: ["http://*/*", "https://*/*"],
    icons: { 128: "icon-128.png" },
    action: { default_title: "Vigil" },
    ...(browser === "firefox"
      ? {
          browser_specific_settings: {
            gecko: { id: GECKO_ID, strict_min_version: "128.0", data_collection_permissions: { required: ["none"] } },
          },
        }
      : { key: EXTENSION_KEY }),
  }),
});
