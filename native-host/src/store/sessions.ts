/**
 * The sessions table.
 * Design: docs/design.md §9.
 */
import type { Adapter } from "../../../shared/schemas/inputs.js";
import type { SessionSandbox } from "../../../shared/schemas/sandbox.js";
import type { Db } from "./db.js";

export interface SessionRow {
  id: string;
  label: string | null;
  root: string | null;
  adapter: Adapter;
  createdAt: number;
  /** whsec_… for a webhook adapter (signing key; never shown after the reply that set it). */
  webhookSecret: string | null;
  /** A platform-declared turn holds wakes until this time. */
  busyUntil: number | null;
  /** The host it was made on, where its agent runs (team mode); null before hosts existed. */
  hostId: string | null;
  /** Its host's seal over what delivery runs or sends to (engine/seals.ts); null: not sealed. */
  adapterSeal: string | null;
  /** The sandbox its agent reported (Codex); null: none known. */
  sandbox: SessionSandbox | null;
}

export interface RawSession {
  id: string;
  label: string | null;
  root: string | null;
  adapter: string;
  created_at: number;
  webhook_secret: string | null;
  busy_until: number | null;
  host_id: string | null;
  adapter_seal: string | null;
  sandbox: string | null;
}

export const toSessionRow = (raw: RawSession): SessionRow => ({
  id: raw.id,
  label: raw.label,
  root: raw.root,
  adapter: JSON.parse(raw.adapter) as Adapter,
  createdAt: raw.created_at,
  webhookSecret: raw.webhook_secret,
  busyUntil: raw.busy_until,
  hostId: raw.host_id,
  adapterSeal: raw.adapter_seal,
  sandbox: raw.sandbox === null ? null : (JSON.parse(raw.sandbox) as SessionSandbox),
});

/** A new session: `hostId` is the host it is made on (absent: none, as before hosts existed). */
export type NewSession = Pick<SessionRow, "id" | "label" | "root" | "adapter" | "createdAt"> & {
  hostId?: string | null;
  adapterSeal?: string | null;
};

export class SessionsTable {
  readonly #get;
  readonly #root;
  readonly #list;
  readonly #insert;
  readonly #delete;
  readonly #nextMonitorSeq;
  readonly #setAdapter;
  readonly #setLabel;
  readonly #setSandbox;
  readonly #setBusy;
  readonly #nextTurn;

  constructor(db: Db) {
    this.#get = db.prepare<[string], RawSession>("SELECT * FROM sessions WHERE id = ?");
    this.#root = db.prepare<[string], { root: string | null }>("SELECT root FROM sessions WHERE id = ?");
    this.#list = db.prepare<[], RawSession>("SELECT * FROM sessions ORDER BY created_at, id");
    this.#insert = db.prepare(
      "INSERT INTO sessions (id, label, root, adapter, created_at, host_id, adapter_seal) VALUES (@id, @label, @root, @adapter, @createdAt, @hostId, @adapterSeal)",
    );
    this.#delete = db.prepare("DELETE FROM sessions WHERE id = ?");
    this.#nextMonitorSeq = db.prepare<[string], { monitor_seq: number }>(
      "UPDATE sessions SET monitor_seq = monitor_seq + 1 WHERE id = ? RETURNING monitor_seq",
    );
    this.#setAdapter = db.prepare("UPDATE sessions SET adapter = ?, webhook_secret = ?, adapter_seal = ? WHERE id = ?");
    this.#setLabel = db.prepare("UPDATE sessions SET label = ? WHERE id = ?");
    this.#setSandbox = db.prepare("UPDATE sessions SET sandbox = ?, adapter_seal = ? WHERE id = ?");
    this.#setBusy = db.prepare("UPDATE sessions SET busy_until = ? WHERE id = ?");
    this.#nextTurn = db.prepare<[string], { turn_seq: number }>(
      "UPDATE sessions SET turn_seq = turn_seq + 1 WHERE id = ? RETURNING turn_seq",
    );
  }

  get(id: string): SessionRow | undefined {
    const raw = this.#get.get(id);
    return raw && toSessionRow(raw);
  }

  /** Only the session's root (each command check asks, when its source names no cwd). */
  root(id: string): string | null | undefined {
    return this.#root.get(id)?.root;
  }

  list(): SessionRow[] {
    return this.#list.all().map(toSessionRow);
  }

  insert(row: NewSession): void {
    this.#insert.run({
      ...row,
      adapter: JSON.stringify(row.adapter),
      hostId: row.hostId ?? null,
      adapterSeal: row.adapterSeal ?? null,
    });
  }

  /** `seal`: the host's seal over the new adapter (engine/seals.ts), null for one that runs nothing. */
  setAdapter(id: string, adapter: Adapter, webhookSecret: string | null, seal: string | null = null): void {
    this.#setAdapter.run(JSON.stringify(adapter), webhookSecret, seal, id);
  }

  setLabel(id: string, label: string | null): void {
    this.#setLabel.run(label, id);
  }

  /** `seal`: the host's seal over the session with this sandbox (engine/seals.ts). */
  setSandbox(id: string, sandbox: SessionSandbox | null, seal: string | null = null): void {
    this.#setSandbox.run(sandbox === null ? null : JSON.stringify(sandbox), seal, id);
  }

  setBusy(id: string, until: number | null): void {
    this.#setBusy.run(until, id);
  }

  nextTurn(id: string): number {
    const row = this.#nextTurn.get(id);
    if (!row) throw new Error(`Expected session ${id} to exist`);
    return row.turn_seq;
  }

  delete(id: string): boolean {
    return this.#delete.run(id).changes > 0;
  }

  nextMonitorSeq(id: string): number {
    const row = this.#nextMonitorSeq.get(id);
    if (!row) throw new Error(`Expected session ${id} to exist`);
    return row.monitor_seq;
  }
}
