/**
 * The extension's background (MV3 service worker or Firefox event page): thin, everything in
 * lib/background.ts.
 * Design: docs/design.md §7.
 */
import { browser } from "wxt/browser";
import { defineBackground } from "wxt/utils/define-background";
import { startBackground } from "../lib/background";

export default defineBackground(() => {
  // Tests and the observe benchmark wait for this global: the worker's code has run.
  (globalThis as { vigil?: unknown }).vigil = startBackground(browser);
});
