-- The side panel as a place to act (#26, design.md §7). A person may set a wake aside (Dismiss): it is
-- cancelled, never delivered, and `dismissed_at` says it was the person, not a cancel of its monitor.
ALTER TABLE wakes ADD COLUMN dismissed_at INTEGER;
-- "Clear ended" takes a session's ended monitors out of the panel's list; the rows, their events and
-- their wakes are kept (and purged as before: resolved waitpoints after 3 days).
ALTER TABLE monitors ADD COLUMN cleared_at INTEGER;
-- The Needs-you list reads wakes that need review or wait for a retry without scanning every wake.
CREATE INDEX wakes_attention ON wakes(state) WHERE state IN ('ready', 'needs_review');
-- The panel pages a session's monitors in order.
CREATE INDEX monitors_session_uid ON monitors(session_id, uid);
-- The panel's counts per session read this index alone (no table look-up).
CREATE INDEX monitors_panel ON monitors(session_id, kind, ending_reason, cleared_at);
-- A monitor's wakes (its latest, how many, those of the last hour) without scanning every wake.
CREATE INDEX wakes_monitor ON wakes(monitor_uid, id);
-- The Needs-you list's monitor side: only armed monitors in error, waitpoints with a heartbeat
-- timeout, and waitpoints that failed or expired are in these indexes.
CREATE INDEX monitors_in_error ON monitors(uid) WHERE last_error IS NOT NULL AND ending_reason IS NULL;
CREATE INDEX waitpoints_heartbeat ON waitpoints(monitor_uid) WHERE heartbeat_timeout_ms IS NOT NULL;
CREATE INDEX monitors_failed ON monitors(ending_at) WHERE ending_reason IN ('failed', 'timeout');
