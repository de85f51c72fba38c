-- SQLite's 0021_notify.sql (Needs-you notifications, issue #40) on PostgreSQL.
CREATE TABLE notify_channels (
  name          text PRIMARY KEY,
  kind          text NOT NULL,
  config        text NOT NULL,
  sessions      text NOT NULL DEFAULT '[]',
  causes        text NOT NULL DEFAULT '[]',
  paused        bigint NOT NULL DEFAULT 0,
  host_id       text,
  created_at    bigint NOT NULL,
  last_sent_at  bigint,
  last_error    text,
  last_error_at bigint,
  claim_until   bigint
);

CREATE TABLE notify_outbox (
  channel         text NOT NULL REFERENCES notify_channels(name) ON DELETE CASCADE,
  entry_key       text NOT NULL,
  item            text NOT NULL,
  state           text NOT NULL DEFAULT 'pending',
  attempts        bigint NOT NULL DEFAULT 0,
  created_at      bigint NOT NULL,
  next_attempt_at bigint NOT NULL,
  sent_at         bigint,
  last_error      text,
  PRIMARY KEY (channel, entry_key)
);

CREATE INDEX notify_outbox_pending ON notify_outbox(channel, next_attempt_at) WHERE state = 'pending';
