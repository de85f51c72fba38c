/**
 * An Engine in-process on a real (in-memory) SQLite database with fake time, for tests of the
 * engine's timing rules. Registers its own beforeEach/afterEach; read `.engine`/`.store` in tests.
 */
import { afterEach, beforeEach, vi } from "vitest";
import { silentLogger } from "../../native-host/src/base/log.js";
import { Engine } from "../../native-host/src/engine/engine.js";
import { Store } from "../../native-host/src/store/store.js";

export function useFakeTimeEngine(start = "2026-12-01T12:00:00Z") {
  const harness = {} as { engine: Engine; store: Store };
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    vi.setSystemTime(Date.parse(start));
    harness.store = Store.open(":memory:");
    harness.engine = new Engine({ store: harness.store, log: silentLogger });
    harness.engine.start();
    harness.engine.createSession({ id: "s" });
  });
  afterEach(() => {
    harness.engine.stop();
    harness.store.close();
    vi.useRealTimers();
  });
  return harness;
}
