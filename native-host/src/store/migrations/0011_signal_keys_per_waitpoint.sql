-- A signal's key dedupes only signals to the same waitpoint (as Stripe scopes idempotency keys per
-- account): one job's key can no longer make another waitpoint's signal vanish. Rebuilt, since SQLite
-- cannot change a UNIQUE constraint in place; nothing references signals.
CREATE TABLE signals_new (
  id          INTEGER PRIMARY KEY,
  monitor_uid INTEGER NOT NULL REFERENCES monitors(uid) ON DELETE CASCADE,
  key         TEXT,                            -- the sender's identity for it, unique per waitpoint
  status      TEXT NOT NULL CHECK (status IN ('ok','fail','progress')),
  member      TEXT,
  message     TEXT,
  data        TEXT,
  via         TEXT NOT NULL CHECK (via IN ('http','spool','device')),
  received_at INTEGER NOT NULL,
  event_seq   INTEGER NOT NULL,
  UNIQUE (monitor_uid, key)
) STRICT;
INSERT INTO signals_new (id, monitor_uid, key, status, member, message, data, via, received_at, event_seq)
  SELECT id, monitor_uid, key, status, member, message, data, via, received_at, event_seq FROM signals;
DROP TABLE signals;
ALTER TABLE signals_new RENAME TO signals;
CREATE INDEX signals_monitor ON signals(monitor_uid, id);
