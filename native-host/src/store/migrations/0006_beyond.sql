-- Beyond the peers (design.md §6.1): the per-monitor check log, and waitpoint heartbeat timeouts.
CREATE TABLE checks (
  monitor_uid INTEGER NOT NULL REFERENCES monitors(uid) ON DELETE CASCADE,
  seq         INTEGER NOT NULL,
  at          INTEGER NOT NULL,
  outcome     TEXT NOT NULL CHECK (outcome IN ('met','not_met','unavailable','error')),
  duration_ms INTEGER,
  excerpt     TEXT,                           -- shielded and capped
  PRIMARY KEY (monitor_uid, seq)
) STRICT, WITHOUT ROWID;

ALTER TABLE waitpoints ADD COLUMN heartbeat_timeout_ms INTEGER;
ALTER TABLE waitpoints ADD COLUMN stall_notified_for INTEGER;  -- the last-signal time a stall wake was sent for
