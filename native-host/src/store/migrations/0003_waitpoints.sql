-- Waitpoints (design.md §5): a monitor whose source is signals. Its trigger's next_due_at is the time a
-- pending wake goes out (the 3 s barrier settle, or the hourly cap clearing).

-- SQLite cannot widen a CHECK in place: rebuild triggers with the 'signal' mode.
CREATE TABLE triggers_new (
  monitor_uid       INTEGER PRIMARY KEY REFERENCES monitors(uid) ON DELETE CASCADE,
  mode              TEXT NOT NULL CHECK (mode IN ('poll','stream','signal')),
  next_due_at       INTEGER,
  deadline_at       INTEGER NOT NULL,
  lease_until       INTEGER,
  polls             INTEGER NOT NULL DEFAULT 0,
  unrunnable_streak INTEGER NOT NULL DEFAULT 0,
  condition_state   TEXT NOT NULL DEFAULT '{}'
) STRICT;
INSERT INTO triggers_new SELECT * FROM triggers;
DROP TABLE triggers;
ALTER TABLE triggers_new RENAME TO triggers;
CREATE INDEX triggers_due ON triggers(next_due_at) WHERE next_due_at IS NOT NULL;
CREATE INDEX triggers_deadline ON triggers(deadline_at);

CREATE TABLE waitpoints (
  monitor_uid INTEGER PRIMARY KEY REFERENCES monitors(uid) ON DELETE CASCADE,
  id          TEXT NOT NULL UNIQUE,            -- wp_ + 12 hex, global: the signal route finds it by id
  secret_hash TEXT NOT NULL,                   -- sha256 of the secret; the secret itself is never stored
  members     TEXT,                            -- JSON array, or NULL
  quorum      INTEGER NOT NULL CHECK (quorum >= 1),
  fail_fast   INTEGER NOT NULL CHECK (fail_fast IN (0, 1)),
  max_signals INTEGER NOT NULL CHECK (max_signals >= 1)
) STRICT;

CREATE TABLE signals (
  id          INTEGER PRIMARY KEY,
  monitor_uid INTEGER NOT NULL REFERENCES monitors(uid) ON DELETE CASCADE,
  key         TEXT UNIQUE,                     -- the sender's identity for it (spool file name, CLI key)
  status      TEXT NOT NULL CHECK (status IN ('ok','fail','progress')),
  member      TEXT,
  message     TEXT,
  data        TEXT,
  via         TEXT NOT NULL CHECK (via IN ('http','spool')),
  received_at INTEGER NOT NULL,
  event_seq   INTEGER NOT NULL                 -- its entry in the monitor's event log
) STRICT;
CREATE INDEX signals_monitor ON signals(monitor_uid, id);
