/**
 * test/helpers/postgres.ts: a real PostgreSQL 15 per test run, on a Unix socket in a temp dir,
 * stopped and removed on teardown — and, when the run that started it was killed, by the next
 * start's sweep (team mode, #27).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { processStart } from "../../native-host/src/base/process-start.js";
import { waitFor } from "../helpers/daemon.js";
import { isRunning, postmasterPid, sweepOrphans, TestPostgres } from "../helpers/postgres.js";

describe("a test PostgreSQL", () => {
  const started: TestPostgres[] = [];
  afterAll(() => {
    for (const server of started) server.stopSync();
  });

  test("starts, accepts a pg connection over its socket only, and stops leaving nothing running", async () => {
    const server = await TestPostgres.start();
    started.push(server);
    expect(isRunning(server.pid)).toBe(true);

    const client = await server.connect();
    const { rows } = await client.query<{ version: string; listen: string; user: string }>(
      "SELECT version() AS version, current_setting('listen_addresses') AS listen, current_user AS user",
    );
    await client.end();
    expect(rows[0]?.version).toMatch(/^PostgreSQL 15\./);
    // No TCP listener: the socket in its own dir is the only way in.
    expect(rows[0]?.listen).toBe("");
    expect(rows[0]?.user).toBe("vigil");

    const url = await server.createDatabase("vigil_helper");
    const other = new (await import("pg")).default.Client({ connectionString: url });
    await other.connect();
    const { rows: db } = await other.query<{ name: string }>("SELECT current_database() AS name");
    await other.end();
    expect(db[0]?.name).toBe("vigil_helper");

    await server.stop();
    expect(isRunning(server.pid)).toBe(false);
    expect(existsSync(server.dir)).toBe(false);
  });

  test("a cluster whose starter was killed (kill -9) is stopped and removed by the next sweep, a live one is not", async () => {
    const server = await TestPostgres.start();
    started.push(server);
    // Stand-in starter: a process we can kill -9, recorded as the cluster's owner.
    const starter: ChildProcess = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    const pid = starter.pid as number;
    await waitFor(() => processStart(pid), { what: "the stand-in starter to run" });
    writeFileSync(join(server.dir, "owner.json"), JSON.stringify({ pid, start: processStart(pid) }));

    expect(sweepOrphans()).not.toContain(server.dir);
    expect(isRunning(server.pid)).toBe(true);

    const exited = new Promise((resolve) => starter.once("exit", resolve));
    starter.kill("SIGKILL");
    await exited;
    expect(sweepOrphans()).toContain(server.dir);
    expect(isRunning(server.pid)).toBe(false);
    expect(existsSync(server.dir)).toBe(false);
    expect(postmasterPid(server.dataDir)).toBeNull();
  });
});
