/**
 * The sessions table on PostgreSQL (team mode, #27): the SQL of store/sessions.ts with `$n`
 * placeholders; rows mapped by the SQLite module's `toSessionRow`.
 * Design: docs/design.md §9 (team mode; the plan: docs/team-mode-plan.md).
 */
import type { Adapter } from "../../../../shared/schemas/inputs.js";
import type { SessionSandbox } from "../../../../shared/schemas/sandbox.js";
import type { SessionsStore } from "../engine.js";
import { type NewSession, type RawSession, type SessionRow, toSessionRow } from "../sessions.js";
import { all, one, type Queryable, run, statement } from "./statement.js";

const GET = statement("sessions_get", "SELECT * FROM sessions WHERE id = $1");
const ROOT = statement("sessions_root", "SELECT root FROM sessions WHERE id = $1");
const LIST = statement("sessions_list", "SELECT * FROM sessions ORDER BY created_at, id");
const INSERT = statement(
  "sessions_insert",
  "INSERT INTO sessions (id, label, root, adapter, created_at, host_id, adapter_seal) VALUES ($1, $2, $3, $4, $5, $6, $7)",
);
const DELETE = statement("sessions_delete", "DELETE FROM sessions WHERE id = $1");
const NEXT_MONITOR_SEQ = statement(
  "sessions_next_monitor_seq",
  "UPDATE sessions SET monitor_seq = monitor_seq + 1 WHERE id = $1 RETURNING monitor_seq",
);
const SET_ADAPTER = statement(
  "sessions_set_adapter",
  "UPDATE sessions SET adapter = $1, webhook_secret = $2, adapter_seal = $3 WHERE id = $4",
);
const SET_LABEL = statement("sessions_set_label", "UPDATE sessions SET label = $1 WHERE id = $2");
const SET_SANDBOX = statement(
  "sessions_set_sandbox",
  "UPDATE sessions SET sandbox = $1, adapter_seal = $2 WHERE id = $3",
);
const SET_BUSY = statement("sessions_set_busy", "UPDATE sessions SET busy_until = $1 WHERE id = $2");
const NEXT_TURN = statement(
  "sessions_next_turn",
  "UPDATE sessions SET turn_seq = turn_seq + 1 WHERE id = $1 RETURNING turn_seq",
);
const LOCK = statement("sessions_lock", "SELECT 1 AS one FROM sessions WHERE id = $1 FOR UPDATE");

export class PgSessions implements SessionsStore {
  constructor(private readonly db: Queryable) {}

  async get(id: string): Promise<SessionRow | undefined> {
    const raw = await one<RawSession>(this.db, GET, [id]);
    return raw && toSessionRow(raw);
  }

  async root(id: string): Promise<string | null | undefined> {
    return (await one<{ root: string | null }>(this.db, ROOT, [id]))?.root;
  }

  async list(): Promise<SessionRow[]> {
    return (await all<RawSession>(this.db, LIST)).map(toSessionRow);
  }

  async insert(row: NewSession): Promise<void> {
    await run(this.db, INSERT, [
      row.id,
      row.label,
      row.root,
      JSON.stringify(row.adapter),
      row.createdAt,
      row.hostId ?? null,
      row.adapterSeal ?? null,
    ]);
  }

  async setAdapter(
    id: string,
    adapter: Adapter,
    webhookSecret: string | null,
    seal: string | null = null,
  ): Promise<void> {
    await run(this.db, SET_ADAPTER, [JSON.stringify(adapter), webhookSecret, seal, id]);
  }

  async setLabel(id: string, label: string | null): Promise<void> {
    await run(this.db, SET_LABEL, [label, id]);
  }

  async setSandbox(id: string, sandbox: SessionSandbox | null, seal: string | null = null): Promise<void> {
    await run(this.db, SET_SANDBOX, [sandbox === null ? null : JSON.stringify(sandbox), seal, id]);
  }

  async setBusy(id: string, until: number | null): Promise<void> {
    await run(this.db, SET_BUSY, [until, id]);
  }

  async nextTurn(id: string): Promise<number> {
    const row = await one<{ turn_seq: number }>(this.db, NEXT_TURN, [id]);
    if (!row) throw new Error(`Expected session ${id} to exist`);
    return row.turn_seq;
  }

  async delete(id: string): Promise<boolean> {
    return (await run(this.db, DELETE, [id])) > 0;
  }

  async nextMonitorSeq(id: string): Promise<number> {
    const row = await one<{ monitor_seq: number }>(this.db, NEXT_MONITOR_SEQ, [id]);
    if (!row) throw new Error(`Expected session ${id} to exist`);
    return row.monitor_seq;
  }

  /** SELECT … FOR UPDATE: the session row is this transaction's until it ends. */
  async lockForUpdate(id: string): Promise<boolean> {
    return (await run(this.db, LOCK, [id])) > 0;
  }
}
