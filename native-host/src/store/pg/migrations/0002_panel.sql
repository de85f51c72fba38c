-- SQLite's migrations 0014 (the side panel as a place to act, #26) and 0015 (signals keep one
-- index, #30) on PostgreSQL: the same columns and indexes, so the schemas stay equal
-- (SQLITE_SCHEMA_PARITY = 15; `pg-migrate.test.ts` compares them).
ALTER TABLE wakes ADD COLUMN dismissed_at bigint;
ALTER TABLE monitors ADD COLUMN cleared_at bigint;
CREATE INDEX wakes_attention ON wakes(state) WHERE state IN ('ready', 'needs_review');
CREATE INDEX monitors_session_uid ON monitors(session_id, uid);
CREATE INDEX monitors_panel ON monitors(session_id, kind, ending_reason, cleared_at);
CREATE INDEX wakes_monitor ON wakes(monitor_uid, id);
CREATE INDEX monitors_in_error ON monitors(uid) WHERE last_error IS NOT NULL AND ending_reason IS NULL;
CREATE INDEX waitpoints_heartbeat ON waitpoints(monitor_uid) WHERE heartbeat_timeout_ms IS NOT NULL;
CREATE INDEX monitors_failed ON monitors(ending_at) WHERE ending_reason IN ('failed', 'timeout');
DROP INDEX signals_monitor;
