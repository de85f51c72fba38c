/** The sessions table. */
import type { Adapter } from "../../../shared/schemas.js";
import type { Db } from "./db.js";

export interface SessionRow {
  id: string;
  label: string | null;
  root: string | null;
  adapter: Adapter;
  createdAt: number;
}

interface RawSession {
  id: string;
  label: string | null;
  root: string | null;
  adapter: string;
  created_at: number;
}

const toRow = (raw: RawSession): SessionRow => ({
  id: raw.id,
  label: raw.label,
  root: raw.root,
  adapter: JSON.parse(raw.adapter) as Adapter,
  createdAt: raw.created_at,
});

export class SessionsTable {
  readonly #get;
  readonly #list;
  readonly #insert;
  readonly #delete;
  readonly #nextMonitorSeq;

  constructor(db: Db) {
    this.#get = db.prepare<[string], RawSession>("SELECT * FROM sessions WHERE id = ?");
    this.#list = db.prepare<[], RawSession>("SELECT * FROM sessions ORDER BY created_at, id");
    this.#insert = db.prepare(
      "INSERT INTO sessions (id, label, root, adapter, created_at) VALUES (@id, @label, @root, @adapter, @createdAt)",
    );
    this.#delete = db.prepare("DELETE FROM sessions WHERE id = ?");
    this.#nextMonitorSeq = db.prepare<[string], { monitor_seq: number }>(
      "UPDATE sessions SET monitor_seq = monitor_seq + 1 WHERE id = ? RETURNING monitor_seq",
    );
  }

  get(id: string): SessionRow | undefined {
    const raw = this.#get.get(id);
    return raw && toRow(raw);
  }

  list(): SessionRow[] {
    return this.#list.all().map(toRow);
  }

  insert(row: SessionRow): void {
    this.#insert.run({ ...row, adapter: JSON.stringify(row.adapter) });
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
