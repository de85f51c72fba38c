-- Needs-you notifications (issue #40). A channel is where the person is told (ntfy, Slack,
-- Discord, a webhook, the desktop, e-mail); its config holds secrets only as ${secret:KEY}.
-- The outbox has one row per channel and Needs-you entry: the primary key is what makes a second
-- insert for the same entry a no-op, so one entry is never sent twice to one channel. A channel is
-- claimed (claim_until) by the host sending its messages: one host at a time, at most one a minute.
CREATE TABLE notify_channels (
  name          TEXT PRIMARY KEY,
  kind          TEXT NOT NULL,
  config        TEXT NOT NULL,
  sessions      TEXT NOT NULL DEFAULT '[]',
  causes        TEXT NOT NULL DEFAULT '[]',
  paused        INTEGER NOT NULL DEFAULT 0,
  host_id       TEXT,
  created_at    INTEGER NOT NULL,
  last_sent_at  INTEGER,
  last_error    TEXT,
  last_error_at INTEGER,
  claim_until   INTEGER
);

CREATE TABLE notify_outbox (
  channel         TEXT NOT NULL REFERENCES notify_channels(name) ON DELETE CASCADE,
  entry_key       TEXT NOT NULL,
  item            TEXT NOT NULL,
  state           TEXT NOT NULL DEFAULT 'pending',
  attempts        INTEGER NOT NULL DEFAULT 0,
  created_at      INTEGER NOT NULL,
  next_attempt_at INTEGER NOT NULL,
  sent_at         INTEGER,
  last_error      TEXT,
  PRIMARY KEY (channel, entry_key)
);

CREATE INDEX notify_outbox_pending ON notify_outbox(channel, next_attempt_at) WHERE state = 'pending';
