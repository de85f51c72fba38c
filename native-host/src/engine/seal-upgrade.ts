/**
 * Rows made before seals (migration 0018) carry none. On SQLite they are sealed at start: one
 * host, the home's own file (0600 in the 0700 home), so whoever wrote them is the account, which is
 * the boundary (design.md §8). On PostgreSQL nothing is sealed here: every host holds the database's
 * credentials, so an unsealed host-bound row may be a peer's; it is refused when due, and shown in
 * "Needs you" with what to do (arm it again through its host's daemon).
 * Design: docs/design.md §8, §9.1.
 */
import type { Engine as Store } from "../store/engine.js";
import { needsSeal, type Sealer } from "./seals.js";

/** Seals the armed host-bound triggers and the sessions that have no seal; returns how many. */
export async function sealUnsealedRows(store: Store, sealer: Sealer): Promise<number> {
  if (store.engine !== "sqlite") return 0;
  let sealed = 0;
  await store.tx(async (t) => {
    for (const mode of ["poll", "stream"] as const) {
      for (const record of await t.monitors.armedOfMode(mode, sealer.hostId)) {
        if (record.trigger?.seal !== null || !needsSeal(record)) continue;
        await t.monitors.setSeal(record.uid, sealer.sealTrigger(record));
        sealed += 1;
      }
    }
    for (const session of await t.sessions.list()) {
      if (session.adapterSeal !== null) continue;
      await t.sessions.setAdapter(session.id, session.adapter, session.webhookSecret, sealer.sealSession(session));
      sealed += 1;
    }
  });
  return sealed;
}
