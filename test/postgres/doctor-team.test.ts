/**
 * `vigil doctor` in team mode (#39): the PostgreSQL the daemon would use — VIGIL_DATABASE_URL, else
 * the one the home's team file remembers — is connected to and asked `SELECT 1`, on the run's real
 * server; a database that is not there is one FIX line; the password never shows.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { afterAll, expect, inject, test } from "vitest";
import { BIN } from "../helpers/daemon.js";
import { createDatabaseAt } from "../helpers/postgres.js";

const PASSWORD = "s3cret-doctor-pw";
const root = mkdtempSync(join(tmpdir(), "vigil-doctor-team-"));
const socketDir = inject("postgresSocketDir");
/** The server trusts its socket, so the password is not checked: it is there to be hidden. */
const withPassword = (database: string) =>
  `postgres://vigil:${PASSWORD}@/${database}?host=${encodeURIComponent(socketDir)}`;
const shown = (database: string) => `postgres://vigil:***@/${database}?host=${encodeURIComponent(socketDir)}`;

afterAll(() => rmSync(root, { recursive: true, force: true }));

const doctor = (home: string, env: Record<string, string> = {}) =>
  execa(process.execPath, [BIN, "--home", home, "doctor"], {
    env: { HOME: join(root, "user"), PATH: [dirname(process.execPath), "/usr/bin", "/bin"].join(":"), ...env },
    extendEnv: false,
    reject: false,
  });

test("VIGIL_DATABASE_URL reachable: ok, the URL shown without its password", async () => {
  await createDatabaseAt(socketDir, "vigil_doctor_ok");
  const report = await doctor(join(root, "home-ok"), { VIGIL_DATABASE_URL: withPassword("vigil_doctor_ok") });
  expect(report.stdout).toContain(
    `ok   team mode: PostgreSQL at ${shown("vigil_doctor_ok")} (VIGIL_DATABASE_URL) answers\n`,
  );
  expect(report.stdout + report.stderr).not.toContain(PASSWORD);
});

test("a database that is not there: one FIX line with the server's reason and how to check, no password, exit 1", async () => {
  const report = await doctor(join(root, "home-missing"), { VIGIL_DATABASE_URL: withPassword("no_such_db") });
  expect(report.exitCode).toBe(1);
  expect(report.stdout).toContain(
    `FIX  team mode: PostgreSQL at ${shown("no_such_db")} (VIGIL_DATABASE_URL) does not answer: database "no_such_db" does not exist → start PostgreSQL or correct VIGIL_DATABASE_URL; check with: psql "$VIGIL_DATABASE_URL" -c 'SELECT 1'\n`,
  );
  expect(report.stdout + report.stderr).not.toContain(PASSWORD);
});

test("a server that is not there, named by the home's team file: the connection error, no password", async () => {
  const home = join(root, "home-team");
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const gone = `postgres://vigil:${PASSWORD}@/vigil?host=${encodeURIComponent(join(root, "no-server"))}`;
  writeFileSync(join(home, "team.json"), JSON.stringify({ databaseUrl: gone, hostName: "laptop" }), { mode: 0o600 });
  const report = await doctor(home);
  expect(report.exitCode).toBe(1);
  expect(report.stdout).toMatch(
    new RegExp(
      `FIX  team mode: PostgreSQL at postgres://vigil:\\*\\*\\*@/vigil\\S* \\(${join(home, "team.json")}\\) does not answer: connect ENOENT \\S+no-server/\\.s\\.PGSQL\\.5432 → start PostgreSQL or correct databaseUrl in ${join(home, "team.json")}\n`,
    ),
  );
  expect(report.stdout + report.stderr).not.toContain(PASSWORD);
});

test("SQLite (no URL, no team file): no team-mode line", async () => {
  expect((await doctor(join(root, "home-sqlite"))).stdout).not.toContain("team mode");
});
