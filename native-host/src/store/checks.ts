/**
 * The check log: each check's outcome, last 100 per monitor, so "why didn't it fire?" has an answer.
 * A command check also keeps its exit code and its shielded output tail (core/output-tail.ts), but
 * only two checks per monitor hold output: the latest, and the latest failing one (an error or a
 * non-zero exit), so the reason a check failed stays readable after later ones, and a chatty
 * monitor's output is bounded (2 × 32 KiB). Deleting a check (the cap, its monitor) deletes it.
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
  exit_code: number | null;
  output: string | null;
}

/** What a command check printed: its exit code and its output tail (shielded), when it ran at all. */
export interface CheckOutput {
  exitCode: number | null;
  text: string | null;
}

/** The columns a check log read selects (both engines). */
export const CHECK_COLUMNS = "seq, at, outcome, duration_ms, excerpt, exit_code, output";

/**
 * Keeps output on the latest check (`$2`, the one just recorded) and the latest failing one only.
 * Written with `?`; the PostgreSQL module numbers them.
 */
export const DROP_OLDER_OUTPUT = `UPDATE checks SET output = NULL
  WHERE monitor_uid = ? AND seq < ? AND output IS NOT NULL AND seq <> coalesce(
    (SELECT max(f.seq) FROM checks f WHERE f.monitor_uid = ? AND f.output IS NOT NULL
       AND (f.outcome = 'error' OR coalesce(f.exit_code, 0) <> 0)), 0)`;

export const toCheckEntry = (row: RawCheck): CheckEntry => ({
  seq: row.seq,
  at: new Date(row.at).toISOString(),
  outcome: row.outcome,
  durationMs: row.duration_ms,
  excerpt: row.excerpt,
  exitCode: row.exit_code === null ? null : Number(row.exit_code),
  output: row.output,
});

export class ChecksTable {
  readonly #insert;
  readonly #prune;
  readonly #list;
  readonly #dropOlderOutput;

  constructor(db: Db) {
    this.#insert = db.prepare(
      "INSERT OR REPLACE INTO checks (monitor_uid, seq, at, outcome, duration_ms, excerpt, exit_code, output) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    );
    this.#dropOlderOutput = db.prepare(DROP_OLDER_OUTPUT);
    this.#prune = db.prepare("DELETE FROM checks WHERE monitor_uid = ? AND seq <= ?");
    this.#list = db.prepare<[number], RawCheck>(
      `SELECT ${CHECK_COLUMNS} FROM checks WHERE monitor_uid = ? ORDER BY seq`,
    );
  }

  record(
    uid: number,
    seq: number,
    at: number,
    outcome: CheckOutcome,
    durationMs: number | null,
    excerpt: string | null,
    output: CheckOutput | null = null,
  ) {
    const duration = durationMs === null ? null : Math.round(durationMs);
    this.#insert.run(uid, seq, at, outcome, duration, excerpt, output?.exitCode ?? null, output?.text ?? null);
    if (output?.text != null) this.#dropOlderOutput.run(uid, seq, uid);
    if (seq > CHECK_LOG_CAP) this.#prune.run(uid, seq - CHECK_LOG_CAP);
  }

  list(uid: number): CheckEntry[] {
    return this.#list.all(uid).map(toCheckEntry);
  }
}
