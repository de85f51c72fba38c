/**
 * The layers of docs/design.md §1, enforced: no import cycles, and no arrow against the table.
 * A module may import its own layer and the layers below it; `api/` and the clients (`mcp/`,
 * `native/`, `cli/`) reach the daemon only through the HTTP API.
 */
const src = "^native-host/src/";
const layer = (...folders) => `${src}(${folders.join("|")})/`;

/** Each layer and what it may import besides itself (shared/ is below everything). */
const BASE = layer("base");
const STORE = layer("store");
const SECRETS = layer("secrets");
const CORE = layer("core");
const SERVICES = layer("probes", "tools", "browser", "engine", "delivery", "intake", "devices", "notify");
const API = layer("api");
const EDGES = layer("http", "mcp", "native", "cli", "install");
const CLIENTS = layer("mcp", "native");

module.exports = {
  forbidden: [
    {
      name: "no-cycles",
      severity: "error",
      comment: "Import cycles hide which module owns what.",
      from: {},
      to: { circular: true },
    },
    {
      name: "shared-is-the-floor",
      severity: "error",
      comment: "shared/ is used by the extension and the host; it imports neither.",
      from: { path: "^shared/" },
      to: { path: "^(native-host|extension)/" },
    },
    {
      name: "extension-uses-shared-only",
      severity: "error",
      comment: "The extension runs in the browser: it shares types and pure logic, never host code.",
      from: { path: "^extension/" },
      to: { path: "^native-host/" },
    },
    {
      name: "base-imports-nothing-above",
      severity: "error",
      from: { path: BASE },
      to: { path: src, pathNot: BASE },
    },
    {
      name: "store-imports-base-only",
      severity: "error",
      from: { path: STORE },
      to: { path: src, pathNot: `${BASE}|${STORE}` },
    },
    {
      name: "secrets-imports-store-and-below",
      severity: "error",
      from: { path: SECRETS },
      to: { path: src, pathNot: `${BASE}|${STORE}|${SECRETS}` },
    },
    {
      name: "core-knows-no-service-or-transport",
      severity: "error",
      comment: "The core is the transport-free domain: it returns typed outcomes.",
      from: { path: CORE },
      to: { path: src, pathNot: `${BASE}|${STORE}|${SECRETS}|${CORE}` },
    },
    {
      name: "core-knows-no-engine",
      severity: "error",
      comment:
        "The core works on the store's contract (store/engine.ts) alone; what an engine's errors mean is store/unreachable.ts.",
      from: { path: CORE },
      to: { path: `${src}store/pg/` },
    },
    {
      name: "services-import-no-edge",
      severity: "error",
      from: { path: SERVICES },
      to: { path: `${EDGES}|${API}|${src}daemon` },
    },
    {
      name: "api-client-imports-base-only",
      severity: "error",
      comment: "The one API client is what every other process uses to reach the daemon.",
      from: { path: API },
      to: { path: src, pathNot: `${BASE}|${API}` },
    },
    {
      name: "clients-reach-the-daemon-through-the-api",
      severity: "error",
      comment: "The MCP server and the native bridge are clients of the HTTP API.",
      from: { path: CLIENTS },
      to: { path: `${STORE}|${SECRETS}|${CORE}|${SERVICES}|${layer("http", "cli")}|${src}daemon\\.ts$` },
    },
    {
      name: "cli-reaches-the-daemon-through-the-api",
      severity: "error",
      comment: "The CLI talks to the daemon over HTTP; only `vigil serve` starts one (daemon.ts).",
      from: { path: layer("cli") },
      to: { path: `${STORE}|${SECRETS}|${SERVICES}|${layer("http")}` },
    },
    {
      name: "install-edits-files-only",
      severity: "error",
      comment: "Setting up browsers and agents writes their files; it needs no daemon code.",
      from: { path: layer("install") },
      to: { path: src, pathNot: `${BASE}|${layer("install")}` },
    },
    {
      name: "http-is-not-a-client",
      severity: "error",
      comment: "Tests of the HTTP layer may wire the real services through the composition root.",
      from: { path: layer("http"), pathNot: "\\.test\\.ts$" },
      to: { path: `${layer("mcp", "native", "cli", "api")}|${src}daemon` },
    },
    {
      name: "execa-is-loaded-on-first-use",
      severity: "error",
      comment:
        "execa is ~100 modules (a third of the daemon's start-up): import it through base/lazy-execa.ts, never statically.",
      from: { path: src, pathNot: "\\.test\\.ts$|base/lazy-execa\\.ts$" },
      to: { path: "(^|/)node_modules/execa/", dynamic: false },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(dist|\\.output|\\.wxt)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
