/**
 * The check log: each check's outcome, last 100 per monitor, so "why didn't it fire?" has an answer.
 * Design: docs/design.md §9.
 */
import type { CheckEntry, CheckOutcome } from "../../../shared/schemas/views.js";
import type { Db } from "./db.js";

export const CHECK_LOG_CAP = 100;
export type { CheckEntry, CheckOutcome };

export interface RawCheck {
  seq: number;
  at: number;
  outcome: CheckOutcome;
  duration_ms: number | null;
  excerpt: string | null;
}

export const toCheckEntry = (row: RawCheck): CheckEntry => ({
  seq: row.seq,
  at: new Date(row.at).toISOString(),
  outcome: row.outcome,
  durationMs: row.duration_ms,
  excerpt: row.excerpt,
});

export class ChecksTable {
  readonly #insert;
  readonly #prune;
  readonly #list;

  constructor(db: Db) {
    this.#insert = db.prepare(
      "INSERT OR REPLACE INTO checks (monitor_uid, seq, at, outcome, duration_ms, excerpt) VALUES (?, ?, ?, ?, ?, ?)",
    );
    this.#prune = db.prepare("DELETE FROM checks WHERE monitor_uid = ? AND seq <= ?");
    this.#list = db.prepare<[number], RawCheck>(
      "SELECT seq, at, outcome, duration_ms, excerpt FROM checks WHERE monitor_uid = ? ORDER BY seq",
    );
  }

  record(
    uid: number,
    seq: number,
    at: number,
    outcome: CheckOutcome,
    durationMs: number | null,
    excerpt: string | null,
  ) {
    this.#insert.run(uid, seq, at, outcome, durationMs === null ? null : Math.round(durationMs), excerpt);
    if (seq > CHECK_LOG_CAP) this.#prune.run(uid, seq - CHECK_LOG_CAP);
  }

  list(uid: number): CheckEntry[] {
    return this.#list.all(uid).map(toCheckEntry);
  }
}
