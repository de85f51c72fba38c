/**
 * The extension end to end in Debian's Chromium (side panel); the suite itself is in suite.ts.
 * Screenshots: test/e2e/artifacts/side-panel-*.png.
 */
import { defineExtensionSuite } from "./suite.js";

defineExtensionSuite("chromium");
