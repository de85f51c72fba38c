/**
 * The side panel's reads (design.md §7): a page of monitors under the panel's filters, the counts per
 * filter and session, and the rows the Needs-you list is made of. Filtering, counting and paging
 * happen here, in SQL: the route builds views only for the page it answers.
 */

import type { Statement } from "better-sqlite3";
import type { SourceKind } from "../../../shared/schemas/sources.js";
import type { Db } from "./db.js";

/** The panel's list filters (`filter=` picks among all, needs, active, ended on top of these). */
export interface PanelFilter {
  sessionId: string | null;
  kind: SourceKind | null;
  device: string | null;
  /** Lower-cased search text: a substring of the name, id, session label, device or stored source (command, tool, URL). */
  q: string | null;
}

export const LIST_FILTERS = ["all", "needs", "active", "ended"] as const;
export type ListFilter = (typeof LIST_FILTERS)[number];

export interface PanelCounts {
  all: number;
  needs: number;
  active: number;
  ended: number;
}

/**
 * What a person may search for a monitor by, in one lower-cased string: its name and id, its
 * session's label, its waitpoint's device, and its source as stored (command, tool name, event type,
 * URL; secrets are kept there as references, never values).
 */
const SEARCH_TEXT = `lower(m.name || ' ' || m.id || ' ' || coalesce(s.label, '') || ' ' || coalesce(wp.device, '') || ' ' || m.source)`;

const NEEDS = "m.uid IN (SELECT value FROM json_each(@needs))";

const LIST_WHERE: Record<ListFilter, string> = {
  all: "",
  active: " AND m.ending_reason IS NULL",
  ended: " AND m.ending_reason IS NOT NULL",
  needs: ` AND ${NEEDS}`,
};

/**
 * FROM and WHERE for the filters given, joining only what they read: the common case (no search,
 * no device) reads the monitors table alone, through its (session_id, kind, ending_reason, cleared_at)
 * index.
 */
function sqlFor(filter: PanelFilter): string {
  const joins = [
    filter.q !== null ? "JOIN sessions s ON s.id = m.session_id" : "",
    filter.q !== null || filter.device !== null ? "LEFT JOIN waitpoints wp ON wp.monitor_uid = m.uid" : "",
  ].join(" ");
  const where = [
    "m.cleared_at IS NULL",
    filter.kind !== null ? "m.kind = @kind" : "",
    filter.device !== null ? "wp.device = @device" : "",
    filter.q !== null ? `instr(${SEARCH_TEXT}, @q) > 0` : "",
  ].filter((part) => part !== "");
  return `FROM monitors m ${joins} WHERE ${where.join(" AND ")}`;
}

const filterKey = (filter: PanelFilter): string =>
  `${filter.kind !== null}${filter.device !== null}${filter.q !== null}`;

/** Stalled or failed waitpoints and monitors in error: the monitor side of the Needs-you list. */
export interface MonitorAttentionRow {
  uid: number;
  sessionId: string;
  monitorId: string;
  name: string;
  kind: SourceKind;
  state: string;
  lastError: string | null;
  /** Monitors in error: when the current run of errored checks began (else the last check). */
  errorSince: number | null;
  endingReason: string | null;
  endingAt: number | null;
  endingDetail: string | null;
  createdAt: number;
  waitpointId: string | null;
  heartbeatTimeoutMs: number | null;
  lastSignalAt: number | null;
  device: string | null;
}

/** A wake that needs the person: in review, retrying, or ready and not taken. */
export interface WakeAttentionRow {
  id: number;
  sessionId: string;
  monitorUid: number;
  monitorId: string;
  name: string;
  kind: SourceKind;
  waitpointId: string | null;
  state: "ready" | "needs_review";
  attempts: number;
  lastError: string | null;
  nextAttemptAt: number | null;
  createdAt: number;
}

export class PanelTable {
  readonly #db: Db;
  /** Statements by the filters present (at most 8 shapes each), prepared once. */
  readonly #statements = new Map<string, Statement>();
  readonly #wakes;
  readonly #monitors;

  constructor(db: Db) {
    this.#db = db;
    this.#wakes = db.prepare<[number], WakeAttentionRow>(
      `SELECT w.id, w.session_id AS sessionId, w.monitor_uid AS monitorUid, m.id AS monitorId, m.name, m.kind,
         wp.id AS waitpointId, w.state, w.attempts, w.last_error AS lastError, w.next_attempt_at AS nextAttemptAt,
         w.created_at AS createdAt
       FROM wakes w JOIN monitors m ON m.uid = w.monitor_uid LEFT JOIN waitpoints wp ON wp.monitor_uid = m.uid
       WHERE w.dismissed_at IS NULL
         AND (w.state = 'needs_review' OR (w.state = 'ready' AND (w.attempts > 0 OR w.created_at <= ?)))
       ORDER BY w.id`,
    );
    // Armed monitors whose last check failed, armed waitpoints with a heartbeat timeout, and
    // waitpoints that failed or expired since the given time (not cleared): three look-ups, each on a
    // partial index that holds only such rows, so the cost follows them, not every monitor.
    const columns = `m.uid, m.session_id AS sessionId, m.id AS monitorId, m.name, m.kind, m.state,
         m.last_error AS lastError,
         CASE WHEN m.last_error IS NULL THEN NULL ELSE coalesce(
           (SELECT min(c.at) FROM checks c WHERE c.monitor_uid = m.uid AND c.seq > coalesce(
             (SELECT max(o.seq) FROM checks o WHERE o.monitor_uid = m.uid AND o.outcome != 'error'), 0)),
           m.last_check_at) END AS errorSince,
         m.ending_reason AS endingReason, m.ending_at AS endingAt, m.ending_detail AS endingDetail,
         m.created_at AS createdAt, wp.id AS waitpointId, wp.heartbeat_timeout_ms AS heartbeatTimeoutMs,
         CASE WHEN wp.monitor_uid IS NULL THEN NULL
           ELSE (SELECT max(g.received_at) FROM signals g WHERE g.monitor_uid = m.uid) END AS lastSignalAt,
         wp.device`;
    this.#monitors = db.prepare<[number], MonitorAttentionRow>(
      `SELECT ${columns} FROM monitors m LEFT JOIN waitpoints wp ON wp.monitor_uid = m.uid
         WHERE m.last_error IS NOT NULL AND m.ending_reason IS NULL AND m.cleared_at IS NULL
       UNION ALL
       SELECT ${columns} FROM waitpoints wp JOIN monitors m ON m.uid = wp.monitor_uid
         WHERE wp.heartbeat_timeout_ms IS NOT NULL AND m.ending_reason IS NULL AND m.cleared_at IS NULL
           AND m.last_error IS NULL
       UNION ALL
       SELECT ${columns} FROM monitors m JOIN waitpoints wp ON wp.monitor_uid = m.uid
         WHERE m.ending_reason IN ('failed', 'timeout') AND m.ending_at >= ? AND m.cleared_at IS NULL`,
    );
  }

  #statement(key: string, sql: () => string): Statement {
    let statement = this.#statements.get(key);
    if (!statement) {
      statement = this.#db.prepare(sql());
      this.#statements.set(key, statement);
    }
    return statement;
  }

  /**
   * One session's monitors (uids) under the filters, in the order armed: the route walks the sessions
   * in order with their counts and asks only those its page reaches (the session index, no sort).
   */
  sessionPage(
    sessionId: string,
    filter: PanelFilter,
    list: ListFilter,
    needs: readonly number[],
    offset: number,
    limit: number,
  ): number[] {
    const statement = this.#statement(
      `page:${list}:${filterKey(filter)}`,
      () =>
        `SELECT m.uid ${sqlFor(filter)} AND m.session_id = @session${LIST_WHERE[list]} ORDER BY m.uid LIMIT @limit OFFSET @offset`,
    );
    const rows = statement.all({ ...params(filter, needs), session: sessionId, offset, limit }) as Array<{
      uid: number;
    }>;
    return rows.map((row) => row.uid);
  }

  /** Counts per session under the kind, device and search filters (not the session filter). */
  counts(filter: PanelFilter, needs: readonly number[]): Map<string, PanelCounts> {
    const statement = this.#statement(
      `counts:${filterKey(filter)}`,
      () =>
        `SELECT m.session_id AS sessionId, count(*) AS "all", sum(m.ending_reason IS NULL) AS active,
         sum(m.ending_reason IS NOT NULL) AS ended, sum(${NEEDS}) AS needs
       ${sqlFor(filter)} GROUP BY m.session_id`,
    );
    const rows = statement.all(params(filter, needs)) as Array<PanelCounts & { sessionId: string }>;
    return new Map(
      rows.map(({ sessionId, ...counts }) => [
        sessionId,
        { all: counts.all, needs: counts.needs ?? 0, active: counts.active ?? 0, ended: counts.ended ?? 0 },
      ]),
    );
  }

  /** Wakes that need review, are being retried, or are ready and untaken since `staleBefore`. */
  attentionWakes(staleBefore: number): WakeAttentionRow[] {
    return this.#wakes.all(staleBefore);
  }

  /** Armed monitors in error, armed waitpoints with a heartbeat timeout, waitpoints failed since `endedSince`. */
  attentionMonitors(endedSince: number): MonitorAttentionRow[] {
    return this.#monitors.all(endedSince);
  }
}

/** The named parameters the statement for these filters uses (better-sqlite3 refuses unused ones). */
function params(filter: PanelFilter, needs: readonly number[]): Record<string, unknown> {
  return {
    needs: JSON.stringify(needs),
    ...(filter.kind !== null ? { kind: filter.kind } : {}),
    ...(filter.device !== null ? { device: filter.device } : {}),
    ...(filter.q !== null ? { q: filter.q } : {}),
  };
}
