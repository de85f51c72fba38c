import { defineConfig } from "wxt";

// The browser extension (Manifest V3) lives in extension/; its entrypoints arrive with the
// extension issue. Build output goes to .output/<browser>-mv3/.
export default defineConfig({
  srcDir: "extension",
  outDir: ".output",
  manifest: {
    name: "Vigil",
    description: "See, pause, resume and cancel the monitors your AI agents are waiting on.",
  },
});
