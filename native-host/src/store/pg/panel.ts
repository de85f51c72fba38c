/**
 * The side panel's reads on PostgreSQL (team mode, #27): the SQL of store/panel.ts with `$n`
 * placeholders (json_each → `= ANY($n)`, instr → strpos (a search reads its text from the tables
 * here, where SQLite keeps it in `monitor_search`: the same columns, SEARCH_TEXT), `sum(a > b)` → `count(*) FILTER`, the
 * camelCase column aliases quoted, since PostgreSQL folds unquoted names to lower case).
 * Design: docs/design.md §7, §9 (team mode; the plan: docs/team-mode-plan.md).
 */
import type { PanelStore } from "../engine.js";
import type { ListFilter, MonitorAttentionRow, PanelCounts, PanelFilter, WakeAttentionRow } from "../panel.js";
import { all, type Queryable, type Statement, statement } from "./statement.js";

/**
 * What a row shows, as SQLite's `monitor_search_text` (migration 0023) makes it: name, id, session
 * label, the waitpoint's id, device and intent, the last error, last event and ending detail, and
 * the kept signals' messages. The stored source (command, URL) is never shown and is not searched.
 */
const SEARCH_TEXT = `lower(m.name || ' ' || m.id || ' ' || coalesce(s.label, '') || ' ' || coalesce(wp.id, '') || ' '
  || coalesce(wp.device, '') || ' ' || CASE WHEN wp.monitor_uid IS NULL THEN '' ELSE coalesce(m.continuation, '') END
  || ' ' || coalesce(m.last_error, '') || ' ' || coalesce(m.last_event, '') || ' ' || coalesce(m.ending_detail, '')
  || ' ' || coalesce(g.messages, ''))`;

/** The statement's `$n` for each parameter the filters use, in order, and the FROM … WHERE they need. */
function sqlFor(filter: PanelFilter, first: string[]): { from: string; names: string[] } {
  const names = [...first];
  const at = (name: string) => {
    names.push(name);
    return `$${names.length}`;
  };
  const join = filter.device !== null ? "JOIN waitpoints wp ON wp.monitor_uid = m.uid" : "";
  const where = [
    "m.cleared_at IS NULL",
    filter.kind !== null ? `m.kind = ${at("kind")}` : "",
    filter.device !== null ? `wp.device = ${at("device")}` : "",
    // A search's matches are found once per request (`search`) and passed in, as on SQLite.
    filter.q !== null ? `m.uid = ANY(${at("found")}::bigint[])` : "",
  ].filter((part) => part !== "");
  return { from: `FROM monitors m ${join} WHERE ${where.join(" AND ")}`, names };
}

const filterKey = (filter: PanelFilter): string =>
  `${Number(filter.kind !== null)}${Number(filter.device !== null)}${Number(filter.q !== null)}`;

const LIST_WHERE: Record<ListFilter, string> = {
  all: "",
  active: " AND m.ending_reason IS NULL",
  ended: " AND m.ending_reason IS NOT NULL",
  needs: " AND m.uid = ANY($1::bigint[])",
};

const SEARCH = statement(
  "panel_search",
  `SELECT m.uid FROM monitors m JOIN sessions s ON s.id = m.session_id
     LEFT JOIN waitpoints wp ON wp.monitor_uid = m.uid
     LEFT JOIN (SELECT monitor_uid, string_agg(message, ' ' ORDER BY id) AS messages FROM signals
                WHERE message IS NOT NULL GROUP BY monitor_uid) g ON g.monitor_uid = m.uid
   WHERE strpos(${SEARCH_TEXT}, $1) > 0`,
);

const WAKES = statement(
  "panel_attention_wakes",
  `SELECT w.id, w.session_id AS "sessionId", w.monitor_uid AS "monitorUid", m.id AS "monitorId", m.name, m.kind,
     wp.id AS "waitpointId", w.state, w.attempts, w.last_error AS "lastError", w.next_attempt_at AS "nextAttemptAt",
     w.created_at AS "createdAt"
   FROM wakes w JOIN monitors m ON m.uid = w.monitor_uid LEFT JOIN waitpoints wp ON wp.monitor_uid = m.uid
   WHERE w.dismissed_at IS NULL
     AND (w.state = 'needs_review' OR (w.state = 'ready' AND (w.attempts > 0 OR w.created_at <= $1)))
   ORDER BY w.id`,
);

const COLUMNS = `m.uid, m.session_id AS "sessionId", m.id AS "monitorId", m.name, m.kind, m.state,
     m.last_error AS "lastError",
     CASE WHEN m.last_error IS NULL THEN NULL ELSE coalesce(
       (SELECT min(c.at) FROM checks c WHERE c.monitor_uid = m.uid AND c.seq > coalesce(
         (SELECT max(o.seq) FROM checks o WHERE o.monitor_uid = m.uid AND o.outcome <> 'error'), 0)),
       m.last_check_at) END AS "errorSince",
     m.ending_reason AS "endingReason", m.ending_at AS "endingAt", m.ending_detail AS "endingDetail",
     m.created_at AS "createdAt", wp.id AS "waitpointId", wp.heartbeat_timeout_ms AS "heartbeatTimeoutMs",
     CASE WHEN wp.monitor_uid IS NULL THEN NULL
       ELSE (SELECT max(g.received_at) FROM signals g WHERE g.monitor_uid = m.uid) END AS "lastSignalAt",
     CASE WHEN wp.monitor_uid IS NULL THEN NULL ELSE (SELECT g.message FROM signals g
       WHERE g.monitor_uid = m.uid AND g.status = 'fail' AND g.message IS NOT NULL ORDER BY g.id DESC LIMIT 1)
       END AS "failMessage",
     CASE WHEN wp.monitor_uid IS NULL THEN NULL ELSE (SELECT g.message FROM signals g
       WHERE g.monitor_uid = m.uid AND g.status = 'progress' AND g.message IS NOT NULL ORDER BY g.id DESC LIMIT 1)
       END AS "progressMessage",
     wp.device`;

const MONITORS = statement(
  "panel_attention_monitors",
  `SELECT ${COLUMNS} FROM monitors m LEFT JOIN waitpoints wp ON wp.monitor_uid = m.uid
     WHERE m.last_error IS NOT NULL AND m.ending_reason IS NULL AND m.cleared_at IS NULL
   UNION ALL
   SELECT ${COLUMNS} FROM waitpoints wp JOIN monitors m ON m.uid = wp.monitor_uid
     WHERE wp.heartbeat_timeout_ms IS NOT NULL AND m.ending_reason IS NULL AND m.cleared_at IS NULL
       AND m.last_error IS NULL
   UNION ALL
   SELECT ${COLUMNS} FROM monitors m JOIN waitpoints wp ON wp.monitor_uid = m.uid
     WHERE m.ending_reason IN ('failed', 'timeout') AND m.ending_at >= $1 AND m.cleared_at IS NULL`,
);

interface Shaped {
  sql: Statement;
  names: string[];
}

/** Statements by the filters present (at most 8 shapes each), made once per process. */
const shapes = new Map<string, Shaped>();

function shaped(key: string, make: () => { text: string; names: string[] }): Shaped {
  let found = shapes.get(key);
  if (!found) {
    const { text, names } = make();
    found = { sql: statement(`panel_${key}`, text), names };
    shapes.set(key, found);
  }
  return found;
}

function values(
  names: string[],
  filter: PanelFilter,
  found: readonly number[] | null,
  extra: Record<string, unknown>,
): unknown[] {
  if (filter.q !== null && found === null)
    throw new Error(`Expected the matches of the search "${filter.q}", got none`);
  const known: Record<string, unknown> = { kind: filter.kind, device: filter.device, found, ...extra };
  return names.map((name) => known[name]);
}

export class PgPanel implements PanelStore {
  constructor(private readonly db: Queryable) {}

  /** The monitors (uids) whose search text holds `q` (lower-cased), cleared ones too. */
  async search(q: string): Promise<number[]> {
    return (await all<{ uid: number }>(this.db, SEARCH, [q])).map((row) => row.uid);
  }

  async sessionPage(
    sessionId: string,
    filter: PanelFilter,
    list: ListFilter,
    needs: readonly number[],
    found: readonly number[] | null,
    offset: number,
    limit: number,
  ): Promise<number[]> {
    const { sql, names } = shaped(`page_${list}_${filterKey(filter)}`, () => {
      // The needs list is bound only where it is read: PostgreSQL refuses a value for no placeholder.
      const { from, names } = sqlFor(filter, list === "needs" ? ["needs"] : []);
      const n = names.length;
      return {
        text: `SELECT m.uid ${from} AND m.session_id = $${n + 1}${LIST_WHERE[list]} ORDER BY m.uid LIMIT $${n + 2} OFFSET $${n + 3}`,
        names: [...names, "session", "limit", "offset"],
      };
    });
    const rows = await all<{ uid: number }>(
      this.db,
      sql,
      values(names, filter, found, { needs, session: sessionId, limit, offset }),
    );
    return rows.map((row) => row.uid);
  }

  /** The monitors (uids by session, in uid order) under the filters, for a list that names few. */
  async listed(
    filter: PanelFilter,
    list: ListFilter,
    needs: readonly number[],
    found: readonly number[] | null,
  ): Promise<Map<string, number[]>> {
    const { sql, names } = shaped(`listed_${list}_${filterKey(filter)}`, () => {
      const { from, names } = sqlFor(filter, list === "needs" ? ["needs"] : []);
      return { text: `SELECT m.uid, m.session_id AS "sessionId" ${from}${LIST_WHERE[list]} ORDER BY m.uid`, names };
    });
    const bySession = new Map<string, number[]>();
    for (const row of await all<{ uid: number; sessionId: string }>(
      this.db,
      sql,
      values(names, filter, found, { needs }),
    )) {
      const uids = bySession.get(row.sessionId);
      if (uids) uids.push(row.uid);
      else bySession.set(row.sessionId, [row.uid]);
    }
    return bySession;
  }

  async counts(
    filter: PanelFilter,
    needs: readonly number[],
    found: readonly number[] | null,
  ): Promise<Map<string, PanelCounts>> {
    const { sql, names } = shaped(`counts_${filterKey(filter)}`, () => {
      const { from, names } = sqlFor(filter, ["needs"]);
      return {
        text: `SELECT m.session_id AS "sessionId", count(*) AS "all",
           count(*) FILTER (WHERE m.ending_reason IS NULL) AS active,
           count(*) FILTER (WHERE m.ending_reason IS NOT NULL) AS ended,
           count(*) FILTER (WHERE m.uid = ANY($1::bigint[])) AS needs
         ${from} GROUP BY m.session_id`,
        names,
      };
    });
    const rows = await all<PanelCounts & { sessionId: string }>(this.db, sql, values(names, filter, found, { needs }));
    return new Map(
      rows.map(({ sessionId, ...counts }) => [
        sessionId,
        { all: counts.all, needs: counts.needs, active: counts.active, ended: counts.ended },
      ]),
    );
  }

  async attentionWakes(staleBefore: number): Promise<WakeAttentionRow[]> {
    return all<WakeAttentionRow & Record<string, unknown>>(this.db, WAKES, [staleBefore]);
  }

  async attentionMonitors(endedSince: number): Promise<MonitorAttentionRow[]> {
    return all<MonitorAttentionRow & Record<string, unknown>>(this.db, MONITORS, [endedSince]);
  }
}
