-- Devices (design.md §5): other machines reached over SSH whose spool `~/.vigil/tmp/signals/` the
-- daemon collects. A waitpoint may be created for one device: only that device's files resolve it.
CREATE TABLE devices (
  name              TEXT PRIMARY KEY,
  user              TEXT,                      -- NULL: ssh's own default (~/.ssh/config, the local user)
  host              TEXT NOT NULL,
  port              INTEGER CHECK (port BETWEEN 1 AND 65535),
  identity          TEXT,                      -- passed to ssh as -i FILE
  state             TEXT NOT NULL DEFAULT 'offline' CHECK (state IN ('connected','offline','error')),
  last_error        TEXT,
  last_collected_at INTEGER,                   -- the last poll that completed over the connection
  files_collected   INTEGER NOT NULL DEFAULT 0,
  created_at        INTEGER NOT NULL
) STRICT;

-- Names of signal files taken from a device, written in the transaction that stored their signal:
-- a file still on the device whose name is here is removed, never applied again (exactly once).
CREATE TABLE device_collected (
  device       TEXT NOT NULL REFERENCES devices(name) ON DELETE CASCADE,
  name         TEXT NOT NULL,
  collected_at INTEGER NOT NULL,
  PRIMARY KEY (device, name)
) STRICT, WITHOUT ROWID;

ALTER TABLE waitpoints ADD COLUMN device TEXT;   -- NULL: local; else the only device whose files count

-- Signals may now arrive from a device: rebuild the table to widen its `via` check.
CREATE TABLE signals_new (
  id          INTEGER PRIMARY KEY,
  monitor_uid INTEGER NOT NULL REFERENCES monitors(uid) ON DELETE CASCADE,
  key         TEXT UNIQUE,
  status      TEXT NOT NULL CHECK (status IN ('ok','fail','progress')),
  member      TEXT,
  message     TEXT,
  data        TEXT,
  via         TEXT NOT NULL CHECK (via IN ('http','spool','device')),
  received_at INTEGER NOT NULL,
  event_seq   INTEGER NOT NULL
) STRICT;
INSERT INTO signals_new SELECT id, monitor_uid, key, status, member, message, data, via, received_at, event_seq FROM signals;
DROP TABLE signals;
ALTER TABLE signals_new RENAME TO signals;
CREATE INDEX signals_monitor ON signals(monitor_uid, id);
