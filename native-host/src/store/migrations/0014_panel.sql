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
