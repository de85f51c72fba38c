/**
 * The extension end to end in Debian's Firefox ESR (sidebar_action page, event-page background),
 * the same suite as Chromium's (suite.ts). Screenshots: test/e2e/artifacts/firefox-sidebar-*.png.
 */
import { defineExtensionSuite } from "./suite.js";

defineExtensionSuite("firefox");
