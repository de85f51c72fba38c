/**
 * The check log on PostgreSQL (team mode, #27): the SQL of store/checks.ts with `$n` placeholders
 * (INSERT OR REPLACE → ON CONFLICT DO UPDATE); entries mapped by the SQLite module's `toCheckEntry`.
 * Design: docs/design.md §9 (team mode; the plan: docs/team-mode-plan.md).
 */
import {
  CHECK_COLUMNS,
  CHECK_LOG_CAP,
  type CheckEntry,
  type CheckOutcome,
  type CheckOutput,
  DROP_OLDER_OUTPUT,
  type RawCheck,
  toCheckEntry,
} from "../checks.js";
import type { ChecksStore } from "../engine.js";
import { all, type Queryable, run, statement } from "./statement.js";

const INSERT = statement(
  "checks_insert",
  `INSERT INTO checks (monitor_uid, seq, at, outcome, duration_ms, excerpt, exit_code, output)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
   ON CONFLICT (monitor_uid, seq) DO UPDATE SET at = excluded.at, outcome = excluded.outcome,
     duration_ms = excluded.duration_ms, excerpt = excluded.excerpt, exit_code = excluded.exit_code,
     output = excluded.output`,
);
let placeholder = 0;
const DROP_OUTPUT = statement(
  "checks_drop_output",
  DROP_OLDER_OUTPUT.replace(/\?/g, () => `$${++placeholder}`),
);
const PRUNE = statement("checks_prune", "DELETE FROM checks WHERE monitor_uid = $1 AND seq <= $2");
const LIST = statement("checks_list", `SELECT ${CHECK_COLUMNS} FROM checks WHERE monitor_uid = $1 ORDER BY seq`);

export class PgChecks implements ChecksStore {
  constructor(private readonly db: Queryable) {}

  async record(
    uid: number,
    seq: number,
    at: number,
    outcome: CheckOutcome,
    durationMs: number | null,
    excerpt: string | null,
    output: CheckOutput | null = null,
  ): Promise<void> {
    const duration = durationMs === null ? null : Math.round(durationMs);
    const [exitCode, text] = [output?.exitCode ?? null, output?.text ?? null];
    await run(this.db, INSERT, [uid, seq, at, outcome, duration, excerpt, exitCode, text]);
    if (text !== null) await run(this.db, DROP_OUTPUT, [uid, seq, uid]);
    if (seq > CHECK_LOG_CAP) await run(this.db, PRUNE, [uid, seq - CHECK_LOG_CAP]);
  }

  async list(uid: number): Promise<CheckEntry[]> {
    return (await all<RawCheck>(this.db, LIST, [uid])).map(toCheckEntry);
  }
}
