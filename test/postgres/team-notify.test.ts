/**
 * Needs-you notifications in team mode (issue #40): two daemons on one PostgreSQL. A channel
 * belongs to the host that added it and tells of that host's sessions only; a channel added with
 * `--all-hosts` tells of every host's, and each entry reaches it once although both hosts see it.
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";
import { TestDaemon, waitFor } from "../helpers/daemon.js";
import { armFailingMonitor } from "../helpers/failing-monitor.js";
import { sharedPostgres } from "./shared.js";

let alpha: TestDaemon;
let beta: TestDaemon;
let http: Server;
let base = "";
const hits: Array<{ path: string; content: string }> = [];

const contentsTo = (path: string) => hits.filter((hit) => hit.path === path).map((hit) => hit.content);

beforeAll(async () => {
  http = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      hits.push({ path: req.url ?? "", content: JSON.parse(body).content });
      res.writeHead(204);
      res.end();
    });
  });
  http.listen(0, "127.0.0.1");
  await once(http, "listening");
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const url = await sharedPostgres().createDatabase("vigil_team_notify");
  const env = { VIGIL_DATABASE_URL: url, VIGIL_NOTIFY_PASS_MS: "200", VIGIL_NOTIFY_GROUP_MS: "200" };
  // A short rate, so that each host's entries could each go in a message of their own.
  alpha = await TestDaemon.start({ env: { ...env, VIGIL_HOST_NAME: "alpha", VIGIL_NOTIFY_RATE_MS: "500" } });
  beta = await TestDaemon.start({ env: { ...env, VIGIL_HOST_NAME: "beta", VIGIL_NOTIFY_RATE_MS: "500" } });
}, 60_000);

afterAll(async () => {
  await Promise.all([alpha?.dispose(), beta?.dispose()]);
  http?.close();
});

test("a host's channel tells of its own sessions; an all-hosts channel of every host's, each entry once", async () => {
  // The team's channel names its URL through a vault key both hosts hold: either may send.
  for (const daemon of [alpha, beta]) {
    expect((await daemon.cli(["vault", "set", "TEAM_URL"], { input: `${base}/team\n` })).exitCode).toBe(0);
  }
  const team = await beta.cli(["notify", "add", "discord", "${secret:TEAM_URL}", "--name", "team", "--all-hosts"]);
  expect(team.exitCode, String(team.stderr)).toBe(0);
  const own = await alpha.cli(["notify", "add", "discord", `${base}/alpha`, "--name", "alpha-own"]);
  expect(own.exitCode, String(own.stderr)).toBe(0);
  const listed = JSON.parse(String((await alpha.cli(["notify", "ls", "--json"])).stdout));
  expect(listed.map((c: { name: string; host: string | null }) => [c.name, c.host])).toEqual([
    ["alpha-own", "alpha"],
    ["team", null],
  ]);

  expect((await alpha.api("POST", "/api/sessions", { id: "on-alpha" })).status).toBe(201);
  expect((await beta.api("POST", "/api/sessions", { id: "on-beta" })).status).toBe(201);
  await armFailingMonitor(alpha, "on-alpha", "Alpha export");
  await armFailingMonitor(beta, "on-beta", "Beta export");

  const told = (path: string, name: string) => contentsTo(path).filter((content) => content.includes(name)).length;
  await waitFor(
    () => told("/team", "Alpha export") > 0 && told("/team", "Beta export") > 0 && told("/alpha", "Alpha export") > 0,
    {
      what: "both entries on the team's channel and alpha's entry on alpha's",
      timeoutMs: 30_000,
    },
  );
  // Until nothing is left queued on either host.
  await waitFor(
    async () => {
      for (const daemon of [alpha, beta]) {
        const channels = (await daemon.api("GET", "/api/notify")).body as Array<{ pending: number }>;
        if (channels.some((channel) => channel.pending > 0)) return false;
      }
      return true;
    },
    { what: "no message left queued" },
  );
  expect(told("/team", "Alpha export")).toBe(1);
  expect(told("/team", "Beta export")).toBe(1);
  expect(told("/alpha", "Alpha export")).toBe(1);
  expect(told("/alpha", "Beta export")).toBe(0);
});
