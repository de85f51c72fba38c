import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

/**
 * Two groups, one after the other. First the files that wait on daemons, child processes, agent CLIs,
 * PostgreSQL and a packer more than they compute: two at once even on 2 cores (the agent CLIs' files
 * spend most of their time in the agents' own start and shutdown; the postgres files that stop their
 * server start one of their own). Then the two browser suites, Chromium's beside Firefox's, each
 * alone with its browser and its daemon: timed by what they see, they wait on nothing else.
 * (vitest runs a group's projects on one pool: they must agree on maxWorkers.)
 */
const TWO_AT_ONCE = { sequence: { groupOrder: 0 }, maxWorkers: Math.max(2, availableParallelism() - 1) };
const BROWSERS = { sequence: { groupOrder: 1 }, maxWorkers: 2 };

export default defineConfig({
  test: {
    reporters: ["default", "./test/reporters/summary-line.ts"],
    projects: [
      {
        test: {
          name: "unit",
          ...TWO_AT_ONCE,
          include: [
            "shared/**/*.test.ts",
            "native-host/**/*.test.ts",
            "extension/**/*.test.ts",
            "test/meta/**/*.test.ts",
          ],
          environment: "node",
        },
      },
      {
        test: {
          name: "faults",
          ...TWO_AT_ONCE,
          include: ["test/faults/**/*.test.ts"],
          environment: "node",
          testTimeout: 300_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: "integration",
          ...TWO_AT_ONCE,
          include: ["test/integration/**/*.test.ts"],
          exclude: ["test/integration/devices.test.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        // Team mode (#27): ONE real PostgreSQL per run (setup.ts), a database per file; the store's
        // contract suite (test/postgres/store-contract.test.ts) runs here on both engines.
        test: {
          name: "postgres",
          ...TWO_AT_ONCE,
          include: ["test/postgres/**/*.test.ts"],
          environment: "node",
          globalSetup: ["test/postgres/setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        // Team mode (#27): the integration files that work the store, again, each daemon on a
        // database of its own on one real PostgreSQL (VIGIL_TEST_ENGINE=postgres,
        // test/helpers/daemon.ts). The rest (setup, install, CLI usage, MCP schemas, the extension's
        // build) do not reach the store differently, and running them twice would cost ~5 minutes.
        test: {
          name: "integration-postgres",
          ...TWO_AT_ONCE,
          include: [
            "test/integration/{api,beyond,codex-queue,agent-resume-errors,delivery,hooks,mcp,notify,observation,panel,panel-notify-bridge,restart,secrets,watch,waitpoints,signal-budget,command-wait,check-output,restart-lateness}.test.ts",
          ],
          environment: "node",
          env: { VIGIL_TEST_ENGINE: "postgres" },
          globalSetup: ["test/postgres/setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        // The npm package (#39): packs a copy of the checkout, installs the tarball into a temp
        // prefix with --omit=dev (better-sqlite3 from its prebuilt binary, served locally), runs the quick start.
        test: {
          name: "package",
          ...TWO_AT_ONCE,
          include: ["test/package/**/*.test.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 900_000,
        },
      },
      {
        // Devices over SSH against a real sshd; sshd.ts installs openssh-server and makes the user.
        test: {
          name: "devices",
          ...TWO_AT_ONCE,
          include: ["test/integration/devices.test.ts"],
          environment: "node",
          globalSetup: ["test/devices/sshd.ts"],
          testTimeout: 90_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: "agents",
          ...TWO_AT_ONCE,
          include: ["test/agents/**/*.test.ts"],
          environment: "node",
          globalSetup: ["test/agents/agent-clis.ts"],
          testTimeout: 240_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: "e2e",
          ...BROWSERS,
          include: ["test/e2e/**/*.test.ts"],
          exclude: ["test/e2e/firefox.test.ts"],
          environment: "node",
          globalSetup: ["test/e2e/chromium.ts"],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        // The same browser suite (test/e2e/suite.ts) in Firefox ESR; firefox.ts installs it when absent.
        test: {
          name: "e2e-firefox",
          ...BROWSERS,
          include: ["test/e2e/firefox.test.ts"],
          environment: "node",
          globalSetup: ["test/e2e/firefox.ts"],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
