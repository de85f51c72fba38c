/**
 * Issue #37, finding 7, on a real PostgreSQL with two daemons: an `http__get` is its session's
 * host's, so a peer's agent cannot have another host read what only that host reaches. Beta's
 * session arms a GET of a loopback service that stands for one "only alpha reaches" (one machine
 * here, so both could reach it: the test asserts which host ran each check, by its lease).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { TestDaemon, waitFor } from "../helpers/daemon.js";
import { sharedPostgres } from "./shared.js";

let alpha: TestDaemon;
let beta: TestDaemon;
let alphaOnly: Server;
/** The host name holding the lease of the check each request to alpha's service came from. */
const ranBy: string[] = [];

const named = (url: string, name: string) =>
  TestDaemon.start({ env: { VIGIL_DATABASE_URL: url, VIGIL_HOST_NAME: name } });

beforeAll(async () => {
  const url = await sharedPostgres().createDatabase("vigil_team_http");
  alpha = await named(url, "alpha");
  beta = await named(url, "beta");
  alphaOnly = createServer(async (req, res) => {
    // Asked while the check is in flight: its lease names the host running it.
    const rows = await alpha.query<{ name: string }>(
      `SELECT h.name FROM triggers t JOIN monitors m ON m.uid = t.monitor_uid JOIN hosts h ON h.id = t.lease_owner
        WHERE m.session_id = $1 AND m.id = $2 AND t.lease_until IS NOT NULL`,
      ["b-agent", "mon-1"],
    );
    ranBy.push(rows.map((r) => r.name).join(",") || `no lease (${req.url})`);
    res.writeHead(200, { "content-type": "application/json" }).end('{"secret":"only alpha reads this"}');
  });
  await new Promise<void>((resolve) => alphaOnly.listen(0, "127.0.0.1", resolve));
});

afterAll(async () => {
  alphaOnly?.closeAllConnections();
  await new Promise((resolve) => (alphaOnly ? alphaOnly.close(resolve) : resolve(undefined)));
  await Promise.all([alpha?.dispose(), beta?.dispose()]);
});

describe("http__get across hosts", () => {
  test("beta's session GETs a loopback URL: every check runs on beta (its lease says so), alpha never runs one", async () => {
    expect((await beta.api("POST", "/api/sessions", { id: "b-agent" })).status).toBe(201);
    const { port } = alphaOnly.address() as AddressInfo;
    const made = await beta.api("POST", "/api/sessions/b-agent/monitors", {
      source: {
        kind: "tool",
        name: "http__get",
        args: { url: `http://127.0.0.1:${port}/alpha-only` },
        condition: { path: "body.done", operator: "exists" },
      },
      intervalSeconds: 0.2,
      timeoutSeconds: 120,
    });
    expect(made.status).toBe(201);
    await waitFor(() => ranBy.length >= 10, { timeoutMs: 30_000, what: "ten checks" });
    // What was seen while the monitor was armed: a request in flight when it is cancelled below has
    // its lease ended by the cancel before its handler asks who holds it ("no lease").
    const seen = [...ranBy];
    const [row] = await beta.query<{ host: string }>(
      `SELECT h.name AS host FROM triggers t JOIN monitors m ON m.uid = t.monitor_uid JOIN hosts h ON h.id = t.host_id
        WHERE m.session_id = 'b-agent' AND m.id = 'mon-1'`,
    );
    await beta.api("POST", "/api/sessions/b-agent/monitors/mon-1/control", { action: "cancel" });
    expect(new Set(seen)).toEqual(new Set(["beta"]));
    // Bound to its session's host in the row itself, not only by who happened to take it.
    expect(row?.host).toBe("beta");
  });

  test("beta's agent asking anyHost for that loopback URL is refused at arming (400, nothing stored)", async () => {
    expect((await beta.api("POST", "/api/sessions", { id: "b-any" })).status).toBe(201);
    const { port } = alphaOnly.address() as AddressInfo;
    for (const url of [`http://127.0.0.1:${port}/alpha-only`, `http://localhost:${port}/alpha-only`]) {
      const refused = await beta.api("POST", "/api/sessions/b-any/monitors", {
        source: {
          kind: "tool",
          name: "http__get",
          anyHost: true,
          args: { url },
          condition: { path: "body.done", operator: "exists" },
        },
      });
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body)).toContain(
        `source.anyHost: Expected a public URL for a check any host may run, got ${url}: `,
      );
    }
    expect(await beta.query("SELECT id FROM monitors WHERE session_id = 'b-any'")).toEqual([]);
  });
});
