/**
 * A plain progress report makes no wake and moves no due time (#41): under a stream of them this
 * daemon's delivery does not look at its turn queue, and another host hears the session's change
 * as `progress` — its long-polls and panel follow it, its schedulers do not look again. An ok does
 * both, here and there. Real PostgreSQL; host A's services as the daemon wires them, with its team
 * link, and host B's team link on the same database.
 */
import type pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { DEFAULT_SETTINGS } from "../../native-host/src/base/config.js";
import { silentLogger } from "../../native-host/src/base/log.js";
import { type ChangeKind, type ChangeOrigin, Changes } from "../../native-host/src/core/changes.js";
import type { Waitpoints } from "../../native-host/src/core/waitpoints.js";
import { wireServices } from "../../native-host/src/daemon.js";
import type { Engine } from "../../native-host/src/engine/engine.js";
import { LOOK_MS, TeamLink } from "../../native-host/src/engine/team-link.js";
import { PgEngine } from "../../native-host/src/store/pg/store.js";
import { VaultFile } from "../../native-host/src/store/vault-file.js";
import { waitFor } from "../helpers/daemon.js";
import { migratedDatabase } from "./migrated-pool.js";

let pool: pg.Pool;
let engine: Engine;
let waitpoints: Waitpoints;
const links: TeamLink[] = [];
let stopDelivery: () => void;
/** The delivery's looks at its turn queue (the statement it starts each with). */
let deliveryLooks = 0;
/** What host B heard, and how often its schedulers were told to look again. */
const heardOnB: Array<{ session: string; origin: ChangeOrigin; kind: ChangeKind }> = [];
let looksOnB = 0;
/**
 * Set as B hears its first progress notice: a timer that fires after the look B would set for it
 * then (LOOK_MS from the notice; Node runs timers by when they are due).
 */
let pastLookOnB: Promise<void> | undefined;

/** `pool`, counting the statements named `vigil_wakes_pending_turns` sent on it. */
function counting(pool: pg.Pool): pg.Pool {
  return new Proxy(pool, {
    get(target, prop) {
      if (prop !== "query") return Reflect.get(target, prop, target);
      return (config: unknown, ...rest: unknown[]) => {
        if ((config as pg.QueryConfig | undefined)?.name === "vigil_wakes_pending_turns") deliveryLooks++;
        return (target.query as (...args: unknown[]) => unknown).call(target, config, ...rest);
      };
    },
  });
}

beforeAll(async () => {
  const database = await migratedDatabase("vigil_progress_changes", 6);
  pool = database.pool;
  const store = new PgEngine(counting(pool), new VaultFile(null));
  const settings = { ...DEFAULT_SETTINGS, waitpointSignalsPerMinute: 100_000 };
  const services = await wireServices({ store, log: silentLogger, settings, host: { id: "host-a", name: "a" } });
  ({ engine, waitpoints } = services);
  services.delivery.start();
  stopDelivery = () => services.delivery.stop();
  const changesB = new Changes();
  changesB.on((session, origin, kind) => {
    heardOnB.push({ session, origin, kind });
    if (kind === "progress") pastLookOnB ??= new Promise((resolve) => setTimeout(resolve, LOOK_MS + 1));
  });
  for (const [hostId, changes, lookAgain] of [
    ["host-a", services.changes, () => undefined],
    ["host-b", changesB, () => looksOnB++],
  ] as const) {
    const link = new TeamLink({ url: database.url, pool, hostId, changes, log: silentLogger, lookAgain });
    await link.start();
    links.push(link);
  }
  await engine.createSession({ id: "s" });
});

afterAll(async () => {
  for (const link of links) await link.stop();
  stopDelivery?.();
  await engine?.stop();
  await pool?.end();
});

test("progress reports cost delivery no look and another host's schedulers none; an ok costs both", async () => {
  const wp = await waitpoints.create("s", { label: "steps", intent: "count", max_signals: 1000 });
  await waitFor(() => heardOnB.some((h) => h.session === "s" && h.kind === "any"), { what: "B hears the arming" });
  await waitFor(() => looksOnB > 0, { what: "B's schedulers look after the arming" });
  // The arming's one change: one look of delivery here (started at the next turn), one of B's
  // schedulers (LOOK_MS after its notice). Both done, count afresh.
  await waitFor(() => deliveryLooks > 0, { what: "delivery looks after the arming" });
  deliveryLooks = 0;
  looksOnB = 0;
  heardOnB.length = 0;

  const outcomes = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      waitpoints.signalBatched({ id: wp.id, secret: wp.secret, status: "progress", key: `p${i}` }),
    ),
  );
  expect(outcomes.map((o) => o.verdict)).toEqual(Array(20).fill("accepted"));
  // A change's look is asked for at the next turn of the loop (setImmediate), and starts at once.
  await new Promise((resolve) => setImmediate(resolve));
  expect(deliveryLooks).toBe(0);
  await waitFor(() => pastLookOnB !== undefined || undefined, { what: "B hears the progress" });
  await pastLookOnB;
  expect(heardOnB.length).toBeGreaterThan(0);
  expect(heardOnB.every((h) => h.session === "s" && h.origin === "remote" && h.kind === "progress")).toBe(true);
  expect(looksOnB).toBe(0);

  // An ok makes a wake: delivery looks, and B hears a change and looks once.
  const ok = await waitpoints.signalBatched({ id: wp.id, secret: wp.secret, status: "ok", key: "done" });
  expect(ok.verdict).toBe("accepted");
  await new Promise((resolve) => setImmediate(resolve));
  expect(deliveryLooks).toBeGreaterThan(0);
  await waitFor(() => heardOnB.some((h) => h.kind === "any"), { what: "B hears the ok" });
  await waitFor(() => looksOnB === 1 || undefined, { what: "B's schedulers look once, for the ok" });
});
