/**
 * The team's housekeeping (native-host/src/store/pg/connection.ts `whileLockFree`, team mode #27):
 * while one daemon purges, another daemon's round is skipped rather than done twice; once the first
 * is done, the lock is free again.
 */
import type pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createPool, HOUSEKEEPING_LOCK_KEY, whileLockFree } from "../../native-host/src/store/pg/connection.js";
import type { TestPostgres } from "../helpers/postgres.js";
import { sharedPostgres } from "./shared.js";

let server: TestPostgres;
let alpha: pg.Pool;
let beta: pg.Pool;

beforeAll(async () => {
  server = sharedPostgres();
  const url = await server.createDatabase("vigil_housekeeping");
  // Two daemons' pools: the lock is per session, so each has its own connections.
  alpha = createPool({ url, applicationName: "vigil/alpha", max: 2 });
  beta = createPool({ url, applicationName: "vigil/beta", max: 2 });
});

afterAll(async () => {
  await Promise.all([alpha?.end(), beta?.end()]);
  await server?.stop();
});

test("one daemon purges at a time: another's round is skipped while it runs, and runs once it is done", async () => {
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let started: () => void = () => undefined;
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const ran: string[] = [];
  const first = whileLockFree(alpha, HOUSEKEEPING_LOCK_KEY, async () => {
    ran.push("alpha");
    started();
    await held;
  });
  await running;
  expect(await whileLockFree(beta, HOUSEKEEPING_LOCK_KEY, async () => void ran.push("beta"))).toBe(false);
  release();
  expect(await first).toBe(true);
  expect(await whileLockFree(beta, HOUSEKEEPING_LOCK_KEY, async () => void ran.push("beta"))).toBe(true);
  expect(ran).toEqual(["alpha", "beta"]);
});

test("a purge that throws still frees the lock", async () => {
  await expect(
    whileLockFree(alpha, HOUSEKEEPING_LOCK_KEY, async () => {
      throw new Error("disk full");
    }),
  ).rejects.toThrow("disk full");
  expect(await whileLockFree(beta, HOUSEKEEPING_LOCK_KEY, async () => undefined)).toBe(true);
});
