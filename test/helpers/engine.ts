/**
 * The daemon's services in-process (wired by the composition root, delivery stopped) on a real
 * in-memory SQLite database with fake time, for tests of the engine's timing rules. Registers its
 * own beforeEach/afterEach; read `.engine`/`.waitpoints`/`.store` in tests. The store checks that
 * every transaction's body uses only its own tables (`checkScope`).
 */
import { afterEach, beforeEach, vi } from "vitest";
import { silentLogger } from "../../native-host/src/base/log.js";
import type { Waitpoints } from "../../native-host/src/core/waitpoints.js";
import { wireServices } from "../../native-host/src/daemon.js";
import type { Engine } from "../../native-host/src/engine/engine.js";
import { SqliteEngine } from "../../native-host/src/store/engine.js";
import { Store } from "../../native-host/src/store/store.js";

export function useFakeTimeEngine(start = "2026-12-01T12:00:00Z") {
  const harness = {} as { engine: Engine; waitpoints: Waitpoints; store: SqliteEngine };
  beforeEach(async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    vi.setSystemTime(Date.parse(start));
    harness.store = new SqliteEngine(Store.open(":memory:"), { checkScope: true });
    const services = await wireServices({ store: harness.store, log: silentLogger });
    await services.delivery.stop();
    harness.engine = services.engine;
    harness.waitpoints = services.waitpoints;
    await harness.engine.start();
    await harness.engine.createSession({ id: "s" });
  });
  afterEach(async () => {
    await harness.engine.stop();
    await harness.store.close();
    vi.useRealTimers();
  });
  return harness;
}
