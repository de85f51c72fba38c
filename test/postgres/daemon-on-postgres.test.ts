/**
 * The daemon on PostgreSQL (team mode #27, step 4 of docs/team-mode-plan.md): `VIGIL_DATABASE_URL`
 * puts the whole store in the database — sessions, waitpoints, signals, wakes — the home keeps no
 * SQLite file, what was accepted survives a kill -9, and the password never reaches the log.
 * The daemon's own binary, on the postgres project's one server.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { TestDaemon, waitFor } from "../helpers/daemon.js";
import type { TestPostgres } from "../helpers/postgres.js";
import { ownPostgres } from "./shared.js";

let server: TestPostgres;
let url: string;
let daemon: TestDaemon;

beforeAll(async () => {
  server = await ownPostgres();
  url = await server.createDatabase("vigil_daemon");
  daemon = await TestDaemon.start({ env: { VIGIL_DATABASE_URL: url } });
});

afterAll(async () => {
  await daemon?.dispose();
  await server?.stop();
});

test("a waitpoint armed, signalled and woken on PostgreSQL; kept across a kill -9; no SQLite file in the home", async () => {
  const sid = await daemon.newSession("pg");
  const created = await daemon.api("POST", `/api/sessions/${sid}/waitpoints`, { label: "build", intent: "ship it" });
  expect(created.status).toBe(201);
  const { id, secret } = created.body as { id: string; secret: string };
  const signalled = await daemon.tcp("POST", "/webhook/signal", { id, secret, status: "ok", message: "green" });
  expect(signalled.status).toBe(202);
  const wake = await waitFor(
    async () => ((await daemon.api("GET", `/api/sessions/${sid}/wakes`)).body as Array<{ text: string }>)[0],
    { what: "the waitpoint's wake" },
  );
  expect(wake.text).toContain("ok: green");
  expect(existsSync(join(daemon.home, "vigil.db"))).toBe(false);

  await daemon.kill9();
  await daemon.spawn();
  const view = await daemon.api("GET", `/api/sessions/${sid}/waitpoints/${id}`);
  expect(view.body).toMatchObject({ id, state: "resolved", received: 1 });
  expect(((await daemon.api("GET", `/api/sessions/${sid}/wakes`)).body as unknown[]).length).toBe(1);
  expect(readFileSync(join(daemon.home, "vigil.log"), "utf8")).toContain("store postgres://");
});

test("PostgreSQL stopped: the daemon stays up, a signal is answered 503 and `vigil signal` spools it; back up, the spooled signal is taken, nothing lost", async () => {
  const outage = await TestDaemon.start({
    // The test server trusts its socket, so the password is not checked: it is here to be masked.
    env: {
      VIGIL_DATABASE_URL: `${await server.createDatabase("vigil_outage")}&password=pg-pass-7f3a9c`,
      VIGIL_WAITPOINT_SWEEP_MS: "200",
    },
  });
  try {
    const sid = await outage.newSession("down");
    const created = await outage.api("POST", `/api/sessions/${sid}/waitpoints`, {
      label: "nightly",
      intent: "read the report",
      max_signals: 5,
    });
    const { id, secret } = created.body as { id: string; secret: string };
    server.pause();
    try {
      const refused = await outage.tcp("POST", "/webhook/signal", { id, secret, status: "progress" });
      expect(refused.status).toBe(503);
      expect(JSON.stringify(refused.body)).toContain("Database unreachable");
      expect((await outage.tcp("GET", "/healthz")).status).toBe(200);
      const cli = await outage.cli(["signal", "--id", id, "--status", "ok", "--message", "during the outage"]);
      expect(cli.exitCode).toBe(0);
      expect(cli.stdout).toContain("the daemon answered 503");
      expect(cli.stdout).toContain("spooled to");
    } finally {
      server.resume();
    }
    const view = await waitFor(
      async () => {
        const reply = await outage.api("GET", `/api/sessions/${sid}/waitpoints/${id}`);
        return reply.status === 200 && (reply.body as { received: number }).received === 1 ? reply.body : null;
      },
      { timeoutMs: 30_000, what: "the spooled signal to be taken once the database is back" },
    );
    expect(view).toMatchObject({ signals: [{ status: "ok", message: "during the outage", via: "spool" }] });
    const log = readFileSync(join(outage.home, "vigil.log"), "utf8");
    expect(log).toContain("stays for the next sweep");
    expect(log).toContain("password=***");
    expect(log).not.toContain("pg-pass-7f3a9c");
  } finally {
    await outage.dispose();
  }
});

test("a URL that is not postgres:// is refused at start, saying what was expected", async () => {
  const result = await daemon.cli(["serve", "--port", "0"], { env: { VIGIL_DATABASE_URL: "mysql://db/vigil" } });
  expect(result.exitCode).toBe(1);
  expect(result.stderr).toContain("VIGIL_DATABASE_URL");
  expect(result.stderr).toContain("Expected a postgres:// or postgresql:// URL");
});

test("--database refuses a password on the command line (every user can read argv)", async () => {
  const result = await daemon.cli(["serve", "--port", "0", "--database", "postgres://vigil:hunter2@db/vigil"]);
  expect(result.exitCode).toBe(1);
  expect(result.stderr).toContain("--database: Expected a URL without a password");
  expect(result.stderr).not.toContain("hunter2");
});
