/**
 * Team mode (#27, design.md §9.1): three daemons, each with its own home and host name, on one
 * PostgreSQL database. A session belongs to the host it was made on; its machine-bound checks run
 * there and nowhere else, its wakes are pushed from there, and a signal any daemon takes reaches it
 * at once (the team link's NOTIFY); a host-free check runs on one host per due time. The daemons'
 * own binaries, on the postgres project's one server.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { isAlive, TestDaemon, waitFor } from "../helpers/daemon.js";
import { networkAddress } from "../helpers/network-address.js";
import type { TestPostgres } from "../helpers/postgres.js";
import { ownPostgres } from "./shared.js";

const run = promisify(execFile);
const BIN = join(import.meta.dirname, "..", "..", "bin", "vigil.js");

let url: string;
let alpha: TestDaemon;
let beta: TestDaemon;
let gamma: TestDaemon;

const named = (name: string) => TestDaemon.start({ env: { VIGIL_DATABASE_URL: url, VIGIL_HOST_NAME: name } });
/** `vigil serve` on its own home, expected to stop at once: its exit code and stderr. */
const serve = (home: string, databaseUrl: string, hostName: string) =>
  run(process.execPath, [BIN, "serve", "--port", "0", "--host-name", hostName], {
    env: { ...process.env, VIGIL_HOME: home, VIGIL_DATABASE_URL: databaseUrl },
  }).then(
    () => ({ code: 0, stderr: "" }),
    (error: { code: number; stderr: string }) => error,
  );
const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : []);

interface HostJson {
  name: string;
  state: string;
  self: boolean;
  sessions: number;
  bound: number;
}

let server: TestPostgres;

beforeAll(async () => {
  server = await ownPostgres();
  url = await server.createDatabase("vigil_team");
  // One after another: the first migrates, the others find the schema current.
  alpha = await named("alpha");
  beta = await named("beta");
  gamma = await named("gamma");
});

afterAll(async () => {
  await Promise.all([alpha?.dispose(), beta?.dispose(), gamma?.dispose()]);
  await server?.stop();
});

describe("hosts", () => {
  test("each daemon is a host; vigil hosts lists all three online; vigil status names its own", async () => {
    const listed = await beta.cli(["hosts", "--json"]);
    expect(listed.exitCode).toBe(0);
    const hosts = JSON.parse(String(listed.stdout)) as HostJson[];
    expect(hosts.map((h) => [h.name, h.state, h.self])).toEqual([
      ["alpha", "online", false],
      ["beta", "online", true],
      ["gamma", "online", false],
    ]);
    const status = await gamma.cli(["status"]);
    expect(status.stdout).toContain("host gamma · store PostgreSQL (team mode)");
    const text = await alpha.cli(["hosts"]);
    expect(text.stdout).toMatch(/^alpha \(this daemon\) · online \(heartbeat .*\) · v\S+ · pid \d+/m);
  });

  test("a second daemon under a name a running daemon holds is refused, saying which and what to do", async () => {
    const home = mkdtempSync(join(tmpdir(), "vigil-team-dup-"));
    const result = await serve(home, url, "beta");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Expected no other running daemon named beta on this database, got one");
    expect(result.stderr).toContain("--host-name NAME");
    expect(existsSync(join(home, "daemon.json"))).toBe(false);
  });

  test("a database that is not there stops the start with one line naming it, without the password", async () => {
    const home = mkdtempSync(join(tmpdir(), "vigil-team-nodb-"));
    const wrong = url
      .replace("/vigil_team", "/vigil_nowhere")
      .replace("postgres://vigil@", "postgres://vigil:hunter2@");
    const result = await serve(home, wrong, "nowhere");
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /PostgreSQL at postgres:\/\/vigil:\*\*\*@\/vigil_nowhere\S*: database "vigil_nowhere" does not exist/,
    );
    expect(result.stderr).not.toContain("hunter2");
  });

  test("--host-name takes only a name of letters, digits, '.', '_' and '-'", async () => {
    const result = await alpha.cli(["serve", "--host-name", "no spaces"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`Expected --host-name to be a name of letters, digits`);
  });
});

describe("sessions and wakes across hosts", () => {
  test("a session is its host's: the same id on another host is refused (409) and the session is unchanged", async () => {
    expect((await alpha.api("POST", "/api/sessions", { id: "team-own", label: "on alpha" })).status).toBe(201);
    const again = await beta.api("POST", "/api/sessions", { id: "team-own", label: "on beta" });
    expect(again.status).toBe(409);
    expect(JSON.stringify(again.body)).toMatch(/got a session of host alpha \(h_[0-9a-f]{12}\): its agent runs there/);
    expect((await alpha.api("GET", "/api/sessions/team-own")).body).toMatchObject({ label: "on alpha" });
    // The same host asking again is fine (an agent's hook registers its session at every start).
    expect((await alpha.api("POST", "/api/sessions", { id: "team-own" })).status).toBe(200);
  });

  test("a signal taken by beta wakes alpha's session at once: a long-poll on alpha returns, and alpha (not beta) runs the push", async () => {
    const marker = join(mkdtempSync(join(tmpdir(), "vigil-team-push-")), "pushed");
    const created = await alpha.api("POST", "/api/sessions", {
      id: "team-push",
      adapter: { kind: "command", argv: ["/bin/sh", "-c", `printf '%s\\n' "$VIGIL_HOME" >> ${marker}`] },
    });
    expect(created.status).toBe(201);
    expect((await alpha.api("POST", "/api/sessions", { id: "team-inbox" })).status).toBe(201);
    const arm = async (sid: string) => {
      const reply = await alpha.api("POST", `/api/sessions/${sid}/waitpoints`, { label: "ci", intent: "read the run" });
      expect(reply.status).toBe(201);
      const { id, secret } = reply.body as { id: string; secret: string };
      return { id, secret };
    };
    const pushed = await arm("team-push");
    const inboxed = await arm("team-inbox");

    // Waiting on alpha before the signal exists; the answer comes from beta's notice (counted in
    // alpha's status), or from the heartbeat's look at most 5 s later if a notice were lost.
    const heardBefore = ((await alpha.api("GET", "/api/status")).body as { team: { heard: number } }).team.heard;
    const longPoll = alpha.api("GET", "/api/sessions/team-inbox/wakes/ready?wait=60");
    expect((await beta.tcp("POST", "/webhook/signal", { ...inboxed, status: "ok", message: "green" })).status).toBe(
      202,
    );
    const ready = await longPoll;
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ ready: 1 });
    const status = (await alpha.api("GET", "/api/status")).body as { team: { link: string; heard: number } };
    expect(status.team.link).toBe("listening");
    expect(status.team.heard).toBeGreaterThan(heardBefore);

    expect((await gamma.tcp("POST", "/webhook/signal", { ...pushed, status: "ok", message: "built" })).status).toBe(
      202,
    );
    const wake = await waitFor(
      async () => {
        const wakes = (await alpha.api("GET", "/api/sessions/team-push/wakes")).body as Array<{ state: string }>;
        return wakes[0]?.state === "delivered" ? wakes[0] : null;
      },
      { what: "the push wake delivered" },
    );
    expect(wake.state).toBe("delivered");
    expect(lines(marker)).toEqual([alpha.home]);
  });
});

describe("the database stopped and started again", () => {
  test("every daemon stays up and answers 503 meanwhile; after, a signal through beta wakes alpha's long-poll at once again (the link listens again)", async () => {
    expect((await alpha.api("POST", "/api/sessions", { id: "team-outage" })).status).toBe(201);
    const made = await alpha.api("POST", "/api/sessions/team-outage/waitpoints", { label: "ci", intent: "after" });
    const { id, secret } = made.body as { id: string; secret: string };
    server.pause();
    try {
      for (const daemon of [alpha, beta, gamma]) expect((await daemon.tcp("GET", "/healthz")).status).toBe(200);
      const refused = await beta.tcp("POST", "/webhook/signal", { id, secret, status: "ok" });
      expect(refused.status).toBe(503);
      expect(JSON.stringify(refused.body)).toContain("Database unreachable");
      // vigil status still answers: the daemon runs, and says the database does not.
      const status = await gamma.cli(["status"]);
      expect(status.exitCode, String(status.stderr)).toBe(0);
      expect(status.stdout).toMatch(/^DATABASE UNREACHABLE: Database unreachable \(.+\); the daemon runs on/m);
      expect(status.stdout).toContain("sessions ? · ");
    } finally {
      server.resume();
    }
    // Answered by beta's notice once alpha's listening connection, cut by the stop, is back (or by
    // the resync or heartbeat look if the notice came before that): well before its 60 s.
    const longPoll = alpha.api("GET", "/api/sessions/team-outage/wakes/ready?wait=60");
    await waitFor(
      async () => (await beta.tcp("POST", "/webhook/signal", { id, secret, status: "ok" })).status === 202,
      {
        timeoutMs: 30_000,
        what: "beta to take the signal once the database is back",
      },
    );
    expect((await longPoll).body).toMatchObject({ ready: 1 });
    await waitFor(
      async () =>
        ((await alpha.api("GET", "/api/status")).body as { team: { link: string } }).team.link === "listening",
      { what: "alpha's team link listening again" },
    );
    expect((await alpha.cli(["status"])).stdout).toMatch(/^team link listening · \d+ notices? heard · \d+ sent$/m);
  });
});

describe("checks across hosts", () => {
  let ci: Server;
  let requests = 0;
  let inFlight = 0;
  let mostAtOnce = 0;

  beforeAll(async () => {
    ci = createServer((_req, res) => {
      requests++;
      inFlight++;
      mostAtOnce = Math.max(mostAtOnce, inFlight);
      // Long enough that two hosts running the same due check would overlap.
      setTimeout(() => {
        inFlight--;
        res.writeHead(200, { "content-type": "application/json" }).end('{"status":"running"}');
      }, 150);
    });
    // Not loopback: a check any host may run never reads a loopback address (#37).
    await new Promise<void>((resolve) => ci.listen(0, networkAddress(), resolve));
  });
  afterAll(() => new Promise<void>((resolve) => ci.close(() => resolve())));

  test("a command check of beta's session runs on beta only (armed through beta: another host's daemon is refused, see team-trust.test.ts)", async () => {
    const marker = join(mkdtempSync(join(tmpdir(), "vigil-team-bound-")), "ran");
    expect((await beta.api("POST", "/api/sessions", { id: "team-bound" })).status).toBe(201);
    const made = await beta.api("POST", "/api/sessions/team-bound/monitors", {
      source: { kind: "command", command: `printf '%s\\n' "$VIGIL_HOME" >> ${marker}; exit 1` },
      intervalSeconds: 0.2,
      timeoutSeconds: 120,
    });
    expect(made.status).toBe(201);
    await waitFor(() => lines(marker).length >= 6, { what: "six checks of the command" });
    await beta.api("POST", "/api/sessions/team-bound/monitors/mon-1/control", { action: "cancel" });
    expect(new Set(lines(marker))).toEqual(new Set([beta.home]));
    const hosts = JSON.parse(String((await gamma.cli(["hosts", "--json"])).stdout)) as HostJson[];
    expect(hosts.find((h) => h.name === "beta")).toMatchObject({ sessions: 1 });
  });

  test("a host-free (anyHost) http__get check runs once per due time across the three hosts, never twice at once", async () => {
    expect((await gamma.api("POST", "/api/sessions", { id: "team-free" })).status).toBe(201);
    const { address, port } = ci.address() as AddressInfo;
    const made = await gamma.api("POST", "/api/sessions/team-free/monitors", {
      source: {
        kind: "tool",
        name: "http__get",
        anyHost: true,
        args: { url: `http://${address}:${port}/run` },
        condition: { path: "body.status", operator: "equals", value: "done" },
      },
      intervalSeconds: 0.2,
      timeoutSeconds: 120,
    });
    expect(made.status).toBe(201);
    await waitFor(async () => (await gamma.monitor("team-free", "mon-1")).polls >= 8, {
      timeoutMs: 30_000,
      what: "eight checks",
    });
    await gamma.api("POST", "/api/sessions/team-free/monitors/mon-1/control", { action: "cancel" });
    const polls = ((await gamma.api("GET", "/api/sessions/team-free/monitors/mon-1/checks")).body as unknown[]).length;
    expect(polls).toBeGreaterThanOrEqual(8);
    expect(mostAtOnce).toBe(1);
    // Every request is a recorded check, but for the one the cancel cut short.
    expect(requests).toBeGreaterThanOrEqual(polls);
    expect(requests).toBeLessThanOrEqual(polls + 1);
  });

  test("beta killed and started again: alpha's watch keeps running (only beta's own watches end lost)", async () => {
    expect((await alpha.api("POST", "/api/sessions", { id: "team-watch" })).status).toBe(201);
    expect((await beta.api("POST", "/api/sessions", { id: "team-watch-b" })).status).toBe(201);
    await alpha.api("POST", "/api/sessions/team-watch/monitors", {
      source: { kind: "watch", command: "echo watching; sleep 300" },
    });
    await beta.api("POST", "/api/sessions/team-watch-b/monitors", {
      source: { kind: "watch", command: "echo watching; sleep 300" },
    });
    await waitFor(async () => (await alpha.monitor("team-watch", "mon-1")).eventCount === 1, { what: "alpha's watch" });
    await waitFor(async () => (await beta.monitor("team-watch-b", "mon-1")).eventCount === 1, { what: "beta's watch" });

    await beta.kill9();
    await beta.spawn();

    const own = await beta.waitForState("team-watch-b", "mon-1", ["ready"]);
    expect(own.ending.reason).toBe("lost");
    expect(await alpha.monitor("team-watch", "mon-1")).toMatchObject({ state: "waiting", ending: null });
    const hosts = JSON.parse(String((await alpha.cli(["hosts", "--json"])).stdout)) as HostJson[];
    expect(hosts.find((h) => h.name === "beta")?.state).toBe("online");
  });

  test("a watch is armed through its session's own host: through another it is refused (409)", async () => {
    const reply = await beta.api("POST", "/api/sessions/team-watch/monitors", {
      source: { kind: "watch", command: "sleep 300" },
    });
    expect(reply.status).toBe(409);
    expect((reply.body as { error: { message: string } }).error.message).toMatch(
      /^Expected "arm a monitor" \(POST \/api\/sessions\/:sid\/monitors\) through the daemon of its session's host, got session team-watch of host alpha \(h_[0-9a-f]{12}\)/,
    );
  });

  test("a watch is cancelled through its own host only: through another it is refused (409) and keeps running", async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), "vigil-team-watch-")), "pid");
    expect((await alpha.api("POST", "/api/sessions", { id: "team-cancel" })).status).toBe(201);
    await alpha.api("POST", "/api/sessions/team-cancel/monitors", {
      source: { kind: "watch", command: `echo $$ > ${pidFile}; echo up; exec sleep 300` },
    });
    await waitFor(async () => (await alpha.monitor("team-cancel", "mon-1")).eventCount === 1, { what: "the watch" });
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(isAlive(pid)).toBe(true);
    const refused = await beta.api("POST", "/api/sessions/team-cancel/monitors/mon-1/control", { action: "cancel" });
    expect(refused.status).toBe(409);
    expect(await alpha.monitor("team-cancel", "mon-1")).toMatchObject({ state: "waiting" });
    expect(isAlive(pid)).toBe(true);
    const cancelled = await alpha.api("POST", "/api/sessions/team-cancel/monitors/mon-1/control", { action: "cancel" });
    expect(cancelled.status).toBe(200);
    await waitFor(() => !isAlive(pid), { what: "the watch's process on alpha to stop" });
  });

  test("the team view: a stopped host's sessions say so, its machine's checks read 'waiting for their host', and the panel and vigil ls filter by host", async () => {
    const gammaId = ((await gamma.api("GET", "/api/status")).body as { host: { id: string } }).host.id;
    expect((await gamma.api("POST", "/api/sessions", { id: "team-away", label: "on gamma" })).status).toBe(201);
    const armed = (body: object) => gamma.api("POST", "/api/sessions/team-away/monitors", body);
    const command = await armed({ source: { kind: "command", command: "exit 1" }, intervalSeconds: 60 });
    expect(command.status, JSON.stringify(command.body)).toBe(201);
    const time = await armed({ source: { kind: "time", at: new Date(Date.now() + 600_000).toISOString() } });
    expect(time.status, JSON.stringify(time.body)).toBe(201);
    expect(await gamma.stop()).toBe(0);

    type Page = {
      total: number;
      items: Array<{
        session: { id: string };
        monitor: { id: string; waitingForHost?: { host: string; state: string } };
      }>;
      sessions: Array<{ id: string; host: string | null }>;
      hosts: Array<{ id: string; name: string; state: string; since: string | null; self: boolean }>;
    };
    const page = (await alpha.api("GET", "/api/panel")).body as Page;
    expect(page.hosts.map((h) => [h.name, h.state, h.self])).toEqual([
      ["alpha", "online", true],
      ["beta", "online", false],
      ["gamma", "stopped", false],
    ]);
    expect(page.hosts.find((h) => h.name === "gamma")?.since).toMatch(/^\d{4}-/);
    expect(page.sessions.find((s) => s.id === "team-away")?.host).toBe(gammaId);
    const away = page.items.filter((item) => item.session.id === "team-away");
    // The command needs gamma's machine; a time is kept by whichever host is up.
    expect(away.map((item) => [item.monitor.id, item.monitor.waitingForHost?.state ?? null])).toEqual([
      ["mon-1", "stopped"],
      ["mon-2", null],
    ]);
    expect((await alpha.api("GET", "/api/sessions/team-away")).body).toMatchObject({ host: "gamma" });
    expect((await alpha.cli(["sessions"])).stdout).toMatch(/^team-away \(on gamma\) · host gamma · adapter inbox/m);

    const only = (await alpha.api("GET", "/api/panel?host=gamma")).body as Page;
    expect(new Set(only.sessions.map((s) => s.host))).toEqual(new Set([gammaId]));
    expect(new Set(only.items.map((item) => item.session.id))).toEqual(new Set(["team-away", "team-free"]));
    expect(only.total).toBe(only.items.length);
    const unknown = await alpha.api("GET", "/api/panel?host=epsilon");
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain(
      'host: Expected the name of a host of this database (alpha, beta, gamma), got \\"epsilon\\"',
    );

    const everyHost = String((await alpha.cli(["ls", "--all-hosts"])).stdout);
    expect(everyHost).toMatch(/^gamma team-away mon-1 .* · waiting for their host \(gamma, stopped .* ago\)/m);
    expect(everyHost).toMatch(/^beta team-bound mon-1 /m);
    const thisHost = String((await alpha.cli(["ls", "--all"])).stdout);
    expect(thisHost).toMatch(/^team-watch mon-1 /m);
    expect(thisHost).not.toContain("team-away");
    expect(thisHost).not.toContain("team-bound");

    await gamma.spawn();
    const back = (await alpha.api("GET", "/api/panel?host=gamma")).body as Page;
    expect(back.hosts.find((h) => h.name === "gamma")).toMatchObject({ state: "online", since: null });
    expect(back.items.every((item) => item.monitor.waitingForHost === undefined)).toBe(true);
  });

  test("a device removed through another host stops being collected by the host that added it", async () => {
    const added = await alpha.api("POST", "/api/devices", { name: "team-dev", ssh: "nobody@127.0.0.1", port: 1 });
    expect(added.status).toBe(201);
    expect((await beta.cli(["devices", "rm", "team-dev"])).exitCode).toBe(0);
    const log = join(alpha.home, "vigil.log");
    await waitFor(() => readFileSync(log, "utf8").includes("device team-dev: removed through another host"), {
      what: "alpha to stop collecting team-dev (at its next heartbeat)",
    });
  });

  test("a home remembers its team: started plainly (as an agent's auto-start is) it rejoins as the same host, and the CLI's default session is that host's", async () => {
    const team = join(beta.home, "team.json");
    expect(statSync(team).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(team, "utf8"))).toEqual({ databaseUrl: url, hostName: "beta" });
    expect(await beta.stop()).toBe(0);
    const { VIGIL_DATABASE_URL: _, VIGIL_HOST_NAME: __, ...plain } = beta.env;
    for (const key of Object.keys(beta.env)) delete beta.env[key];
    Object.assign(beta.env, plain);
    await beta.spawn();
    expect((await beta.cli(["status"])).stdout).toContain("host beta · store PostgreSQL (team mode)");
    // No --session: beta's own default session, not alpha's "default".
    const waited = await beta.cli(["wait", "--until", "5", "--", "true"]);
    expect(waited.exitCode, String(waited.stderr)).toBe(0);
    expect((await alpha.api("GET", "/api/sessions/default-beta")).body).toMatchObject({ host: "beta" });
    expect((await alpha.api("GET", "/api/sessions/default")).status).toBe(404);
  });

  test("a host stopped cleanly reads stopped to the others; started again under a new name it keeps its row and sessions", async () => {
    expect(await gamma.stop()).toBe(0);
    const hosts = JSON.parse(String((await alpha.cli(["hosts", "--json"])).stdout)) as HostJson[];
    expect(hosts.find((h) => h.name === "gamma")?.state).toBe("stopped");
    const text = await alpha.cli(["hosts"]);
    expect(text.stdout).toMatch(/^gamma · stopped /m);

    gamma.env.VIGIL_HOST_NAME = "delta";
    await gamma.spawn();
    const after = JSON.parse(String((await alpha.cli(["hosts", "--json"])).stdout)) as HostJson[];
    expect(after.map((h) => h.name)).toEqual(["alpha", "beta", "delta"]);
    expect(after.find((h) => h.name === "delta")).toMatchObject({ state: "online", sessions: 2 });
  });

  test("a daemon whose host row another run took over (a copy of its home started elsewhere) stops at its next heartbeat", async () => {
    const pid = gamma.pid;
    // What a second run of the same home writes when it takes the row.
    await alpha.query("UPDATE hosts SET pid = pid + 1000000 WHERE name = 'delta'");
    await waitFor(() => !isAlive(pid), { what: "delta's daemon to stop" });
    const log = readFileSync(join(gamma.home, "vigil.log"), "utf8");
    expect(log).toContain("another daemon took this host's row");
  });
});

describe("forgetting a host", () => {
  test("vigil hosts rm forgets a stopped host no session names; it refuses one that runs, this daemon, and one with sessions", async () => {
    const epsilon = await named("epsilon");
    try {
      expect((await epsilon.api("POST", "/api/sessions", { id: "team-eps" })).status).toBe(201);
      const running = await alpha.cli(["hosts", "rm", "epsilon"]);
      expect(running.exitCode).toBe(1);
      expect(running.stderr).toContain("Expected epsilon to be stopped or offline, got it online");
      expect(await epsilon.stop()).toBe(0);
      const held = await alpha.cli(["hosts", "rm", "epsilon"]);
      expect(held.exitCode).toBe(1);
      expect(held.stderr).toContain("Expected epsilon to hold no session, got sessions made there");
      // A session is deleted through its own host's daemon (#37): epsilon's, started again.
      expect((await alpha.api("DELETE", "/api/sessions/team-eps")).status).toBe(409);
      await epsilon.spawn();
      expect((await epsilon.api("DELETE", "/api/sessions/team-eps")).status).toBe(200);
      expect(await epsilon.stop()).toBe(0);
      const forgot = await alpha.cli(["hosts", "rm", "epsilon"]);
      expect(forgot.exitCode, String(forgot.stderr)).toBe(0);
      expect(forgot.stdout).toBe("forgot host epsilon");
      const hosts = JSON.parse(String((await alpha.cli(["hosts", "--json"])).stdout)) as HostJson[];
      expect(hosts.map((h) => h.name)).not.toContain("epsilon");
      expect((await alpha.cli(["hosts", "rm", "alpha"])).stderr).toContain(
        "Expected another host than this daemon's own, got alpha",
      );
      expect((await alpha.cli(["hosts", "rm", "nobody"])).stderr).toContain("No host named nobody on this database");
    } finally {
      await epsilon.dispose();
    }
  });
});
