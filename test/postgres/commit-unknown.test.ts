/**
 * A claim whose COMMIT's answer is lost (design.md §9.1): the connection is cut while it commits,
 * so the daemon cannot tell whether the wakes were taken. A push claim it never pushed is released
 * once the database says it committed, and goes out once; a pull's claim is answered with the wakes
 * it took, or claimed again if it did not commit. Real PostgreSQL; this daemon's services as it
 * wires them. The cut: the pool hands out connections whose COMMIT, after a claim statement, is
 * sent and its answer thrown away with the connection ("after"), or never sent ("before").
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { DEFAULT_SETTINGS } from "../../native-host/src/base/config.js";
import type { Logger } from "../../native-host/src/base/log.js";
import type { Waitpoints } from "../../native-host/src/core/waitpoints.js";
import { wireServices } from "../../native-host/src/daemon.js";
import type { Delivery } from "../../native-host/src/delivery/delivery.js";
import type { Engine } from "../../native-host/src/engine/engine.js";
import { PgEngine } from "../../native-host/src/store/pg/store.js";
import { transaction, transactionEnded } from "../../native-host/src/store/pg/transaction.js";
import { CommitUnknownError } from "../../native-host/src/store/unreachable.js";
import { VaultFile } from "../../native-host/src/store/vault-file.js";
import { FIXTURES, waitFor } from "../helpers/daemon.js";
import { deliveriesPerWake } from "../helpers/recorder.js";
import { migratedPool } from "./migrated-pool.js";

type Cut = "before" | "after";

let pool: pg.Pool;
let store: PgEngine;
let engine: Engine;
let waitpoints: Waitpoints;
let delivery: Delivery;
const said: string[] = [];
/** The next COMMIT of a transaction that ran this statement is cut. */
let armed: { statement: string; cut: Cut } | null = null;
let cuts = 0;
/** Statements answered with a lost connection for now (the database away for them). */
const away = new Set<string>();
// A lease of the push's timeout and 0.2 s, for the push recorded after its lease ran out.
process.env.VIGIL_DELIVERY_LEASE_GRACE_MS = "200";

const log: Logger = {
  debug() {},
  info() {},
  warn: (message) => said.push(`warn ${message}`),
  error: (message) => said.push(`error ${message}`),
};

/** `client` as the cut sees it: a COMMIT after the armed statement loses its answer with the connection. */
function cuttable(client: pg.PoolClient): pg.PoolClient {
  let ranArmed = false;
  return new Proxy(client, {
    get(target, prop) {
      if (prop !== "query") return Reflect.get(target, prop, target);
      return async (config: unknown, ...rest: unknown[]) => {
        const name = (config as pg.QueryConfig | undefined)?.name;
        if (name !== undefined && away.has(name)) throw new Error("Connection terminated unexpectedly");
        if (armed && name === `vigil_${armed.statement}`) ranArmed = true;
        if (config === "COMMIT" && ranArmed && armed) {
          const { cut } = armed;
          armed = null;
          cuts++;
          if (cut === "after") await target.query("COMMIT");
          (target as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
          throw new Error("Connection terminated unexpectedly");
        }
        return (target.query as (...args: unknown[]) => unknown).call(target, config, ...rest);
      };
    },
  });
}

function cutting(pool: pg.Pool): pg.Pool {
  return new Proxy(pool, {
    get(target, prop) {
      if (prop !== "connect") return Reflect.get(target, prop, target);
      // pg's own pool.query connects with a callback: that connection is left as it is.
      return (callback?: unknown) =>
        callback === undefined
          ? target.connect().then(cuttable)
          : (target.connect as (cb: unknown) => void).call(target, callback);
    },
  });
}

beforeAll(async () => {
  pool = await migratedPool("vigil_commit_unknown", 6);
  store = new PgEngine(cutting(pool), new VaultFile(null));
  const services = await wireServices({ store, log, settings: DEFAULT_SETTINGS, host: { id: "host-a", name: "a" } });
  ({ engine, waitpoints, delivery } = services);
  delivery.start();
});

afterAll(async () => {
  delivery?.stop();
  await engine?.stop();
  await pool?.end();
});

test.each(["after", "before"] as const)(
  "a transaction whose COMMIT is cut %s it is sent throws CommitUnknownError; once it has ended, what it wrote tells",
  async (cut) => {
    await pool.query("CREATE TABLE IF NOT EXISTS cut_probe (what text)");
    armed = { statement: "probe", cut };
    const writing = transaction(
      cutting(pool),
      async (client) => {
        await client.query({ name: "vigil_probe", text: "INSERT INTO cut_probe VALUES ($1)", values: [cut] });
        return "done";
      },
      {},
      true,
    );
    const error = await writing.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommitUnknownError);
    expect((error as Error).message).toMatch(/^database unreachable at .*Connection terminated unexpectedly/);
    // Until the cut connection's server process has ended, its transaction may still be running.
    await waitFor(
      () =>
        (error as CommitUnknownError)
          .ended()
          .then(() => true)
          .catch(() => undefined),
      { what: "the cut transaction ended" },
    );
    const rows = await pool.query("SELECT what FROM cut_probe WHERE what = $1", [cut]);
    expect(rows.rowCount).toBe(cut === "after" ? 1 : 0);
  },
);

test("a transaction still running has not ended; one the server has not reached (lost in a crash) has", async () => {
  const other = await pool.connect();
  try {
    await other.query("BEGIN");
    const { rows } = await other.query<{ xact: string }>("SELECT pg_current_xact_id()::text AS xact");
    const xact = rows[0]?.xact as string;
    await expect(transactionEnded(pool, xact, "the test database")).rejects.toThrow(/still committing/);
    await other.query("COMMIT");
    await expect(transactionEnded(pool, xact, "the test database")).resolves.toBeUndefined();
    // An id past the server's next one (its commit never reached the log before a crash): 22023, not running.
    const future = (BigInt(xact) + 1_000_000n).toString();
    await expect(transactionEnded(pool, future, "the test database")).resolves.toBeUndefined();
  } finally {
    other.release();
  }
});

test("a transaction not asked to be checkable stays a plain unreachable error", async () => {
  armed = { statement: "probe", cut: "after" };
  const error = await transaction(cutting(pool), async (client) => {
    await client.query({ name: "vigil_probe", text: "INSERT INTO cut_probe VALUES ($1)", values: ["plain"] });
  }).catch((e: unknown) => e);
  expect(error).not.toBeInstanceOf(CommitUnknownError);
  expect((error as Error).name).toBe("DatabaseUnreachableError");
});

/** A one-shot waitpoint of `session`, signalled ok: one ending wake, ready. */
async function readyWake(session: string): Promise<string> {
  const wp = await waitpoints.create(session, { label: "once", intent: "commit cut" });
  const ok = await waitpoints.signalBatched({ id: wp.id, secret: wp.secret, status: "ok", key: "done" });
  expect(ok.verdict).toBe("accepted");
  return (await monitorOf(wp.id)).id;
}

async function monitorOf(waitpoint: string): Promise<{ id: string; state: string }> {
  const rows = await pool.query<{ id: string; state: string }>(
    "SELECT m.id, m.state FROM waitpoints wp JOIN monitors m ON m.uid = wp.monitor_uid WHERE wp.id = $1",
    [waitpoint],
  );
  return rows.rows[0] as { id: string; state: string };
}

async function monitorState(session: string, monitor: string): Promise<string | undefined> {
  const rows = await pool.query<{ state: string }>("SELECT state FROM monitors WHERE session_id = $1 AND id = $2", [
    session,
    monitor,
  ]);
  return rows.rows[0]?.state;
}

async function wakesOf(session: string) {
  return (await store.tables.wakes.list(session)).map((w) => ({
    id: `wake-${w.id}`,
    state: w.state,
    attempts: w.attempts,
    monitor: w.monitor_id,
  }));
}

/** A session whose wakes a command pushes (the recorder: one line per run); the log said afresh. */
async function recordingSession(session: string, timeoutSeconds: number): Promise<string> {
  const receiver = mkdtempSync(join(tmpdir(), `vigil-commit-${session}-`));
  await engine.createSession({ id: session });
  await delivery.setAdapter(session, {
    kind: "command",
    argv: [join(FIXTURES, "adapter-recorder.sh"), receiver],
    timeoutSeconds,
  });
  said.length = 0;
  return receiver;
}

test.each(["after", "before"] as const)(
  "a push claim whose COMMIT is cut %s it is sent: pushed once, delivered, never called interrupted",
  async (cut) => {
    const session = `push-${cut}`;
    const receiver = await recordingSession(session, 5);
    const cutsBefore = cuts;
    armed = { statement: "wakes_claim", cut };
    const monitor = await readyWake(session);
    await waitFor(async () => (await wakesOf(session)).some((w) => w.state === "delivered") || undefined, {
      what: "the wake delivered",
      timeoutMs: 20_000,
    }).catch(async (error: unknown) => {
      throw new Error(`${(error as Error).message}: ${JSON.stringify(await wakesOf(session))} ${said.join(" | ")}`);
    });
    expect(cuts).toBe(cutsBefore + 1);
    const [wake] = await wakesOf(session);
    // One attempt: the claim that was never pushed does not count.
    expect(wake).toEqual({ id: expect.any(String), state: "delivered", attempts: 1, monitor });
    expect(deliveriesPerWake(receiver)).toEqual(new Map([[wake?.id, 1]]));
    expect(await monitorState(session, monitor)).toBe("finished");
    const released = said.filter((line) => /claimed though the database's answer was lost/.test(line));
    // "before": the claim took nothing, so nothing is released (the wakes were ready all along).
    expect(released).toHaveLength(cut === "after" ? 1 : 0);
    expect(said.filter((line) => /needs review/.test(line))).toEqual([]);
  },
);

test.each(["after", "before"] as const)(
  "a pull whose claim's COMMIT is cut %s it is sent is answered with the wake, delivered once",
  async (cut) => {
    const session = `pull-${cut}`;
    await engine.createSession({ id: session });
    const monitor = await readyWake(session);
    armed = { statement: "wakes_claim_delivered", cut };
    const cutsBefore = cuts;
    const taken = await delivery.claim(session, { waitMs: 0, via: "inbox" });
    expect(cuts).toBe(cutsBefore + 1);
    expect(taken.map((w) => w.monitors)).toEqual([[monitor]]);
    expect(await wakesOf(session)).toEqual([{ id: taken[0]?.id, state: "delivered", attempts: 1, monitor }]);
    expect(await delivery.claim(session, { waitMs: 0, via: "inbox" })).toEqual([]);
  },
);

test("a push whose outcome is written only after its lease ran out (the database away) is delivered, not left for review", async () => {
  const session = "push-late";
  const receiver = await recordingSession(session, 1);
  away.add("vigil_wakes_delivered");
  try {
    const monitor = await readyWake(session);
    // Pushed, its outcome not written; the lease (1.2 s) runs out and calls it interrupted.
    await waitFor(async () => (await wakesOf(session))[0]?.state === "needs_review" || undefined, {
      what: "the lease running out while the outcome cannot be written",
    });
    expect(await monitorState(session, monitor)).toBe("needs_review");
  } finally {
    away.delete("vigil_wakes_delivered");
  }
  await waitFor(async () => (await wakesOf(session))[0]?.state === "delivered" || undefined, {
    what: "the outcome written once the database is back",
  });
  const [wake] = await wakesOf(session);
  expect(deliveriesPerWake(receiver)).toEqual(new Map([[wake?.id, 1]]));
  expect(await monitorState(session, wake?.monitor as string)).toBe("finished");
  expect(said.filter((line) => /needs review/.test(line))).toHaveLength(1);
});
