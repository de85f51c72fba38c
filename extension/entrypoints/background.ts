import { browser } from "wxt/browser";
import { defineBackground } from "wxt/utils/define-background";
import { startBackground } from "../lib/background";

export default defineBackground(() => {
  // Tests and the observe benchmark wait for this global: the worker's code has run.
  (globalThis as { vigil?: unknown }).vigil = startBackground(browser);
});
