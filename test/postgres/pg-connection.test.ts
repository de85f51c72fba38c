/**
 * Connecting to a real PostgreSQL 15 (native-host/src/store/pg/connection.ts, notifications.ts;
 * team mode #27): bigints as numbers, a stopped server reported as "database unreachable" and the
 * same pool working again once it is back, and notifications — delivered at commit, never on a
 * rollback, and after a lost connection a reconnect followed by one resync.
 */
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createPool } from "../../native-host/src/store/pg/connection.js";
import { Listener, type ListenerState, type Notice, notify } from "../../native-host/src/store/pg/notifications.js";
import { classify, DatabaseUnreachableError } from "../../native-host/src/store/unreachable.js";
import { waitFor } from "../helpers/daemon.js";
import type { TestPostgres } from "../helpers/postgres.js";
import { ownPostgres } from "./shared.js";

let server: TestPostgres;
let url: string;
const toEnd: Array<{ end(): Promise<void> }> = [];

beforeAll(async () => {
  server = await ownPostgres();
  url = await server.createDatabase("vigil_connection");
});

afterAll(async () => {
  for (const item of toEnd) await item.end().catch(() => undefined);
  await server?.stop();
});

test("the pool reads bigints as numbers; a stopped server is 'database unreachable', and the same pool recovers", async () => {
  const pool = createPool({ url, applicationName: "vigil/test", connectTimeoutMs: 1000 });
  toEnd.push(pool);
  const { rows } = await pool.query<{ at: unknown; app: string }>(
    "SELECT 1733250000000::bigint AS at, current_setting('application_name') AS app",
  );
  expect(rows[0]).toEqual({ at: 1_733_250_000_000, app: "vigil/test" });
  // Only this pool's parser: pg's global one still gives strings.
  const plain = new pg.Client({ connectionString: url });
  await plain.connect();
  expect((await plain.query("SELECT 5::bigint AS n")).rows[0].n).toBe("5");
  await plain.end();

  server.pause();
  const error = await pool.query("SELECT 1").then(
    () => null,
    (e: unknown) => e,
  );
  const classified = classify(error, url);
  expect(classified).toBeInstanceOf(DatabaseUnreachableError);
  expect(String(classified)).toMatch(
    /^DatabaseUnreachableError: database unreachable at postgres:\/\/vigil@\/vigil_connection/,
  );

  server.resume();
  const back = await waitFor(() => pool.query<{ one: number }>("SELECT 1 AS one").then((r) => r.rows[0]?.one), {
    what: "the pool to reach the restarted server",
  });
  expect(back).toBe(1);
});

test("notices arrive at commit only, a probe finds LISTEN working, and a lost connection reconnects with one resync", async () => {
  const heard: Notice[] = [];
  const states: ListenerState[] = [];
  let resyncs = 0;
  const listener = new Listener({
    url,
    channels: ["vigil_h1"],
    onNotice: (_channel, notice) => heard.push(notice),
    onResync: () => {
      resyncs += 1;
    },
    onState: (state) => states.push(state),
    backoff: { minMs: 50, maxMs: 500 },
  });
  toEnd.push({ end: () => listener.stop() });
  await listener.start();
  expect(listener.state).toBe("listening");

  const sender = new pg.Client({ connectionString: url });
  await sender.connect();
  expect(await listener.probe(sender)).toBe(true);

  await sender.query("BEGIN");
  await notify(sender, "vigil_h1", "wake", [41]);
  await sender.query("ROLLBACK");
  await sender.query("BEGIN");
  await notify(sender, "vigil_h1", "wake", [42, 43]);
  // Not before the commit.
  await sender.query("SELECT pg_sleep(0.2)");
  expect(heard).toEqual([]);
  await sender.query("COMMIT");
  await waitFor(() => heard.length > 0, { what: "the committed notice" });
  expect(heard).toEqual([{ kind: "wake", ids: [42, 43] }]);
  await sender.end();

  // The server goes away and comes back: the listener reconnects by itself and asks for one scan.
  server.pause();
  await waitFor(() => listener.state === "reconnecting", { what: "the listener to notice the outage" });
  server.resume();
  await waitFor(() => listener.state === "listening", { what: "the listener to reconnect", timeoutMs: 30_000 });
  expect(resyncs).toBe(1);
  expect(states).toEqual(["listening", "reconnecting", "listening"]);

  const again = new pg.Client({ connectionString: url });
  await again.connect();
  await notify(again, "vigil_h1", "signal", ["wp_000000000001"]);
  await again.end();
  await waitFor(() => heard.length === 2, { what: "a notice after the reconnect" });
  expect(heard[1]).toEqual({ kind: "signal", ids: ["wp_000000000001"] });
});

test("the pool's statement timeout (the databaseStatementTimeoutMs setting) is PostgreSQL's statement_timeout; its size caps the connections", async () => {
  const pool = createPool({ url, applicationName: "vigil/timeout", statementTimeoutMs: 300, max: 2 });
  toEnd.push(pool);
  expect((await pool.query<{ t: string }>("SELECT current_setting('statement_timeout') AS t")).rows[0]?.t).toBe(
    "300ms",
  );
  const slow = await pool.query("SELECT pg_sleep(5)").then(
    () => "finished",
    (e: unknown) => (e as { code?: string }).code,
  );
  expect(slow).toBe("57014"); // query_canceled: the server ended it, the pool goes on
  await Promise.all(Array.from({ length: 6 }, () => pool.query("SELECT pg_sleep(0.05)")));
  expect(pool.totalCount).toBeLessThanOrEqual(2);
  const plain = createPool({ url, applicationName: "vigil/no-timeout" });
  toEnd.push(plain);
  expect((await plain.query<{ t: string }>("SELECT current_setting('statement_timeout') AS t")).rows[0]?.t).toBe("0");
});
