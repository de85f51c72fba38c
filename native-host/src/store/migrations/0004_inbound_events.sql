-- Events posted to a session (design.md §4.1): persisted before the route answers 202, so a crash right
-- after the answer loses nothing. Kept for a day (bounded) to explain what arrived.
CREATE TABLE inbound_events (
  id          INTEGER PRIMARY KEY,
  session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  type        TEXT NOT NULL,
  payload     TEXT NOT NULL,
  received_at INTEGER NOT NULL,
  matched     TEXT NOT NULL DEFAULT '[]'      -- JSON: the monitors it ended or was observed by
) STRICT;
CREATE INDEX inbound_events_session ON inbound_events(session_id, type, received_at);
