/** Wakes: one delivery to a session. `dedupe_key` is UNIQUE: a second insert for the same fire is a no-op. */
import type { WakePayload, WakeState, WakeView } from "../../../shared/schemas.js";
import type { Db } from "./db.js";

export interface NewWake {
  sessionId: string;
  monitorUid: number;
  dedupeKey: string;
  kind: "events" | "ending";
  text: string;
  payload: Omit<WakePayload, "wakeId">;
  createdAt: number;
}

interface RawWake {
  id: number;
  session_id: string;
  monitor_id: string;
  kind: "events" | "ending";
  state: WakeState;
  text: string;
  payload: string;
  created_at: number;
}

export const wakeIdOf = (n: number): string => `wake-${n}`;

const toView = (raw: RawWake): WakeView => ({
  id: wakeIdOf(raw.id),
  sessionId: raw.session_id,
  state: raw.state,
  kind: raw.kind,
  monitors: [raw.monitor_id],
  text: raw.text,
  payload: { ...(JSON.parse(raw.payload) as Omit<WakePayload, "wakeId">), wakeId: wakeIdOf(raw.id) },
  createdAt: new Date(raw.created_at).toISOString(),
});

const SELECT =
  "SELECT w.id, w.session_id, m.id AS monitor_id, w.kind, w.state, w.text, w.payload, w.created_at FROM wakes w JOIN monitors m ON m.uid = w.monitor_uid";

export class WakesTable {
  readonly #insert;
  readonly #bySession;
  readonly #cancelReady;

  constructor(db: Db) {
    this.#insert = db.prepare(
      `INSERT INTO wakes (session_id, monitor_uid, dedupe_key, kind, text, payload, created_at)
       VALUES (@sessionId, @monitorUid, @dedupeKey, @kind, @text, @payload, @createdAt) ON CONFLICT (dedupe_key) DO NOTHING`,
    );
    this.#bySession = db.prepare<[string], RawWake>(`${SELECT} WHERE w.session_id = ? ORDER BY w.id`);
    this.#cancelReady = db.prepare("UPDATE wakes SET state = 'cancelled' WHERE monitor_uid = ? AND state = 'ready'");
  }

  /** Inserts the wake unless one with the same dedupe key exists; returns its number or null. */
  insert(wake: NewWake): number | null {
    const result = this.#insert.run({ ...wake, payload: JSON.stringify(wake.payload) });
    return result.changes > 0 ? Number(result.lastInsertRowid) : null;
  }

  list(sessionId: string): WakeView[] {
    return this.#bySession.all(sessionId).map(toView);
  }

  cancelReady(monitorUid: number): number {
    return this.#cancelReady.run(monitorUid).changes;
  }
}
