/**
 * Claiming due checks on PostgreSQL (team mode, #27): what `monitors.due` + `monitors.lease` do
 * on SQLite inside one immediate transaction, as one statement that daemons can run at the same
 * time. Rows another daemon is claiming this instant are skipped (`FOR UPDATE SKIP LOCKED`,
 * graphile-worker's get_job), so claimers never wait on each other and never take the same check;
 * a lease whose time has passed (its daemon died mid-check) is taken over like a free one.
 * Host-bound kinds will add `AND (kind is host-free OR the session's host is mine)` once sessions
 * carry their host (the plan of #27, step 5). Not wired into the daemon yet.
 * Design: docs/design.md §4.3, §9 (leases; team mode gets its own section with #27).
 */
import type pg from "pg";

export interface ClaimedTrigger {
  uid: number;
  kind: string;
  nextDueAt: number;
  leaseUntil: number;
}

const CLAIM_DUE = `
WITH due AS (
  SELECT t.monitor_uid
    FROM triggers t JOIN monitors m ON m.uid = t.monitor_uid
   WHERE t.next_due_at <= $1
     AND (t.lease_until IS NULL OR t.lease_until < $1)
     AND m.state = 'waiting'
   ORDER BY t.next_due_at
   LIMIT $2
   FOR UPDATE OF t SKIP LOCKED
)
UPDATE triggers t SET lease_until = $3
  FROM due, monitors m
 WHERE t.monitor_uid = due.monitor_uid AND m.uid = t.monitor_uid
RETURNING t.monitor_uid AS uid, m.kind, t.next_due_at, t.lease_until`;

/** Leases up to `limit` checks due at `now` until `leaseUntil`, earliest due first. */
export async function claimDue(
  client: pg.ClientBase,
  now: number,
  limit: number,
  leaseUntil: number,
): Promise<ClaimedTrigger[]> {
  const { rows } = await client.query<{ uid: number; kind: string; next_due_at: number; lease_until: number }>({
    name: "vigil_claim_due",
    text: CLAIM_DUE,
    values: [now, limit, leaseUntil],
  });
  return rows
    .map((row) => ({ uid: row.uid, kind: row.kind, nextDueAt: row.next_due_at, leaseUntil: row.lease_until }))
    .sort((a, b) => a.nextDueAt - b.nextDueAt || a.uid - b.uid);
}
