/**
 * The side panel's reads (design.md §7): a page of monitors under the panel's filters, the counts per
 * filter and session, and the rows the Needs-you list is made of. Filtering, counting and paging
 * happen here, in SQL: the route builds views only for the page it answers.
 */

import type { Statement } from "better-sqlite3";
import type { SourceKind } from "../../../shared/schemas/sources.js";
import type { Db } from "./db.js";
import { wideRows } from "./wide-rows.js";

/** The panel's list filters (`filter=` picks among all, needs, active, ended on top of these). */
export interface PanelFilter {
  sessionId: string | null;
  kind: SourceKind | null;
  device: string | null;
  /** Lower-cased search text: a substring of what the row shows (name, id, label, waitpoint, last error, signal messages). */
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

/** The counts that follow the monitors' rows alone (Needs you also follows the clock). */
type BaseCounts = Omit<PanelCounts, "needs">;

/**
 * What a person may search a monitor by is what its row shows (migration 0023): its name and id, its
 * session's label, its waitpoint's id, device and intent, its last error, last event and ending
 * detail, its signals' messages; never its stored source (a command, a URL: not shown on a row).
 * The text is kept lower-cased in `monitor_search`. A search
 * matches the monitors whose text holds the (lower-cased) query.
 */
const NEEDS = "m.uid IN (SELECT value FROM json_each(@needs))";
const FOUND = "m.uid IN (SELECT value FROM json_each(@found))";

const LIST_WHERE: Record<ListFilter, string> = {
  all: "",
  active: " AND m.ending_reason IS NULL",
  ended: " AND m.ending_reason IS NOT NULL",
  needs: ` AND ${NEEDS}`,
};

/**
 * FROM and WHERE for the filters given, joining only what they read: the common case (no device)
 * reads the monitors table alone, through its (session_id, kind, ending_reason, cleared_at) index. A
 * search's matches are found once per request (`search`) and passed in as `found`.
 */
function sqlFor(filter: PanelFilter): string {
  const join = filter.device !== null ? "JOIN waitpoints wp ON wp.monitor_uid = m.uid" : "";
  const where = [
    "m.cleared_at IS NULL",
    filter.kind !== null ? "m.kind = @kind" : "",
    filter.device !== null ? "wp.device = @device" : "",
    filter.q !== null ? FOUND : "",
  ].filter((part) => part !== "");
  return `FROM monitors m ${join} WHERE ${where.join(" AND ")}`;
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
  /** A waitpoint's latest `fail` signal's message (its human reason), and its latest progress report's. */
  failMessage: string | null;
  progressMessage: string | null;
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
  readonly #search;
  readonly #totalChanges;
  readonly #dataVersion;
  /** What is kept for the database as it was at `#keptGeneration` (see `#kept()`). */
  #keptGeneration = "";
  /** Base counts by kind and device filter. */
  readonly #countsCache = new Map<string, Map<string, BaseCounts>>();
  /** The Needs-you monitor rows, read for waitpoints ended since `endedSince`. */
  #attentionKept: { endedSince: number; rows: MonitorAttentionRow[] } | null = null;

  constructor(db: Db) {
    this.#db = db;
    this.#totalChanges = db.prepare<[], number>("SELECT total_changes()").pluck();
    this.#dataVersion = db.prepare<[], number>("PRAGMA data_version").pluck();
    this.#search = db.prepare<[string], number>("SELECT uid FROM monitor_search WHERE instr(text, ?) > 0").pluck();
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
         CASE WHEN wp.monitor_uid IS NULL THEN NULL ELSE (SELECT g.message FROM signals g
           WHERE g.monitor_uid = m.uid AND g.status = 'fail' AND g.message IS NOT NULL ORDER BY g.id DESC LIMIT 1)
           END AS failMessage,
         CASE WHEN wp.monitor_uid IS NULL THEN NULL ELSE (SELECT g.message FROM signals g
           WHERE g.monitor_uid = m.uid AND g.status = 'progress' AND g.message IS NOT NULL ORDER BY g.id DESC LIMIT 1)
           END AS progressMessage,
         wp.device`;
    this.#monitors = wideRows<[number], MonitorAttentionRow>(
      db,
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

  /** The monitors (uids) whose search text holds `q` (lower-cased), cleared ones too. */
  search(q: string): number[] {
    return this.#search.all(q);
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
    found: readonly number[] | null,
    offset: number,
    limit: number,
  ): number[] {
    const statement = this.#statement(
      `page:${list}:${filterKey(filter)}`,
      () =>
        `SELECT m.uid ${sqlFor(filter)} AND m.session_id = @session${LIST_WHERE[list]} ORDER BY m.uid LIMIT @limit OFFSET @offset`,
    );
    const rows = statement.all({ ...params(filter, needs, found), session: sessionId, offset, limit }) as Array<{
      uid: number;
    }>;
    return rows.map((row) => row.uid);
  }

  /**
   * The monitors (uids by session, in uid order) under the filters, for a list filter or search that
   * names few monitors (Needs you, a search's matches): one look-up per named monitor, where a page
   * spanning many sessions would ask each session for its few.
   */
  listed(
    filter: PanelFilter,
    list: ListFilter,
    needs: readonly number[],
    found: readonly number[] | null,
  ): Map<string, number[]> {
    const statement = this.#statement(
      `listed:${list}:${filterKey(filter)}`,
      () => `SELECT m.uid, m.session_id AS sessionId ${sqlFor(filter)}${LIST_WHERE[list]} ORDER BY m.uid`,
    );
    const bySession = new Map<string, number[]>();
    for (const row of statement.all(params(filter, needs, found)) as Array<{ uid: number; sessionId: string }>) {
      const uids = bySession.get(row.sessionId);
      if (uids) uids.push(row.uid);
      else bySession.set(row.sessionId, [row.uid]);
    }
    return bySession;
  }

  /**
   * Counts per session under the kind, device and search filters (not the session filter); `found`
   * is `search(filter.q)` when there is a query. All, active and ended are read again only once the
   * database has changed (`#generation`); the Needs-you count follows the `needs` given (it moves
   * with the clock too) and reads only those monitors.
   */
  counts(filter: PanelFilter, needs: readonly number[], found: readonly number[] | null): Map<string, PanelCounts> {
    const base = filter.q === null ? this.#cachedBaseCounts(filter) : this.#baseCounts(filter, found);
    const needsStatement = this.#statement(
      `needs:${filterKey(filter)}`,
      () => `SELECT m.session_id AS sessionId, count(*) AS n ${sqlFor(filter)} AND ${NEEDS} GROUP BY m.session_id`,
    );
    const needsBySession = new Map(
      (needsStatement.all(params(filter, needs, found)) as Array<{ sessionId: string; n: number }>).map((row) => [
        row.sessionId,
        row.n,
      ]),
    );
    return new Map(
      [...base].map(([sessionId, counts]) => [sessionId, { ...counts, needs: needsBySession.get(sessionId) ?? 0 }]),
    );
  }

  #baseCounts(filter: PanelFilter, found: readonly number[] | null): Map<string, BaseCounts> {
    const statement = this.#statement(
      `counts:${filterKey(filter)}`,
      () =>
        `SELECT m.session_id AS sessionId, count(*) AS "all", sum(m.ending_reason IS NULL) AS active,
         sum(m.ending_reason IS NOT NULL) AS ended
       ${sqlFor(filter)} GROUP BY m.session_id`,
    );
    const rows = statement.all(params(filter, [], found)) as Array<BaseCounts & { sessionId: string }>;
    return new Map(
      rows.map(({ sessionId, ...counts }) => [
        sessionId,
        { all: counts.all, active: counts.active ?? 0, ended: counts.ended ?? 0 },
      ]),
    );
  }

  /**
   * The base counts under a kind and device filter, kept while the database is unchanged: the panel
   * asks for them on every request, and most requests come between two changes.
   */
  #cachedBaseCounts(filter: PanelFilter): Map<string, BaseCounts> {
    if (!this.#kept()) return this.#baseCounts(filter, null);
    const key = JSON.stringify([filter.kind, filter.device]);
    let counts = this.#countsCache.get(key);
    if (!counts) {
      counts = this.#baseCounts(filter, null);
      this.#countsCache.set(key, counts);
    }
    return counts;
  }

  /**
   * Drops what is kept once the database has changed since it was read. False inside a transaction:
   * what it wrote may yet be rolled back (which leaves the generation as it is), so nothing read
   * there is kept or served.
   */
  #kept(): boolean {
    const generation = this.#generation();
    if (generation !== this.#keptGeneration) {
      this.#keptGeneration = generation;
      this.#countsCache.clear();
      this.#attentionKept = null;
    }
    return !this.#db.inTransaction;
  }

  /**
   * Changes with every row this connection writes (inserted, updated or deleted, by any statement or
   * trigger, committed or not) and every commit of another connection: no write can leave it as it was.
   */
  #generation(): string {
    return `${this.#totalChanges.get()}:${this.#dataVersion.get()}`;
  }

  /** Wakes that need review, are being retried, or are ready and untaken since `staleBefore`. */
  attentionWakes(staleBefore: number): WakeAttentionRow[] {
    return this.#wakes.all(staleBefore);
  }

  /**
   * Armed monitors in error, armed waitpoints with a heartbeat timeout, waitpoints failed since
   * `endedSince`: kept until the database changes (they follow its rows alone; the clock only moves
   * the window, applied here).
   */
  attentionMonitors(endedSince: number): MonitorAttentionRow[] {
    if (!this.#kept()) return this.#monitors.all(endedSince);
    const kept = this.#attentionKept;
    // Kept rows serve while the database is unchanged and the window only moved on (they hold every
    // waitpoint ended since an earlier time: those ended before this one are left out here).
    if (kept && kept.endedSince <= endedSince) {
      return kept.rows.filter((row) => row.endingAt === null || row.endingAt >= endedSince);
    }
    const rows = this.#monitors.all(endedSince);
    this.#attentionKept = { endedSince, rows };
    return rows;
  }
}

/** The named parameters the statement for these filters uses (better-sqlite3 refuses unused ones). */
function params(
  filter: PanelFilter,
  needs: readonly number[],
  found: readonly number[] | null,
): Record<string, unknown> {
  if (filter.q !== null && found === null)
    throw new Error(`Expected the matches of the search "${filter.q}", got none`);
  return {
    needs: JSON.stringify(needs),
    ...(filter.kind !== null ? { kind: filter.kind } : {}),
    ...(filter.device !== null ? { device: filter.device } : {}),
    ...(filter.q !== null ? { found: JSON.stringify(found) } : {}),
  };
}
