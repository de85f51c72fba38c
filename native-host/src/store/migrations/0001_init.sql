-- Sessions own monitors and receive wakes.
CREATE TABLE sessions (
  id          TEXT PRIMARY KEY,
  label       TEXT,
  root        TEXT,
  adapter     TEXT NOT NULL DEFAULT '{"kind":"inbox"}',
  monitor_seq INTEGER NOT NULL DEFAULT 0,
  created_at  INTEGER NOT NULL
) STRICT;

-- The work record: what a monitor is, what it has seen, how it ended (design.md §2).
CREATE TABLE monitors (
  uid              INTEGER PRIMARY KEY,
  session_id       TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  id               TEXT NOT NULL,
  name             TEXT NOT NULL,
  kind             TEXT NOT NULL,
  source           TEXT NOT NULL,           -- JSON; secrets kept as ${secret:KEY} references
  continuation     TEXT,
  interval_ms      INTEGER,
  timeout_ms       INTEGER NOT NULL,
  created_at       INTEGER NOT NULL,
  state            TEXT NOT NULL DEFAULT 'waiting'
                   CHECK (state IN ('waiting','paused','ready','continuing','finished','cancelled','needs_review')),
  event_count      INTEGER NOT NULL DEFAULT 0,
  waked_seq        INTEGER NOT NULL DEFAULT 0, -- events up to this seq were carried by a wake
  last_event       TEXT,
  last_observation TEXT,                     -- JSON, shielded and capped
  last_check_at    INTEGER,
  last_error       TEXT,
  error_count      INTEGER NOT NULL DEFAULT 0,
  ending_reason    TEXT CHECK (ending_reason IN ('met','failed','exited','timeout','stopped','rate_limited','error','lost')),
  ending_at        INTEGER,
  ending_detail    TEXT,
  UNIQUE (session_id, id),
  CHECK ((ending_reason IS NULL) = (ending_at IS NULL))
) STRICT;

-- The trigger: when a monitor fires. Poll state only: never the output itself (it can echo a
-- credential), just a digest. Deleted when the monitor ends.
CREATE TABLE triggers (
  monitor_uid       INTEGER PRIMARY KEY REFERENCES monitors(uid) ON DELETE CASCADE,
  mode              TEXT NOT NULL CHECK (mode IN ('poll','stream')),
  next_due_at       INTEGER,               -- NULL while paused, and for streams
  deadline_at       INTEGER NOT NULL,      -- a due time of its own
  lease_until       INTEGER,               -- a check is running until this time at most
  polls             INTEGER NOT NULL DEFAULT 0,
  unrunnable_streak INTEGER NOT NULL DEFAULT 0,
  condition_state   TEXT NOT NULL DEFAULT '{}' -- digests for `changed`
) STRICT;
CREATE INDEX triggers_due ON triggers(next_due_at) WHERE next_due_at IS NOT NULL;
CREATE INDEX triggers_deadline ON triggers(deadline_at);

-- Each monitor's capped event log (last 200), persisted so it survives a restart.
CREATE TABLE events (
  monitor_uid INTEGER NOT NULL REFERENCES monitors(uid) ON DELETE CASCADE,
  seq         INTEGER NOT NULL,
  at          INTEGER NOT NULL,
  text        TEXT NOT NULL,
  PRIMARY KEY (monitor_uid, seq)
) STRICT, WITHOUT ROWID;

-- One delivery to a session. dedupe_key is unique, so an ending recorded twice still makes one
-- wake: a one-shot monitor cannot be delivered twice (design.md §9).
CREATE TABLE wakes (
  id          INTEGER PRIMARY KEY,
  session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  monitor_uid INTEGER NOT NULL REFERENCES monitors(uid) ON DELETE CASCADE,
  dedupe_key  TEXT NOT NULL UNIQUE,
  kind        TEXT NOT NULL CHECK (kind IN ('events','ending')),
  state       TEXT NOT NULL DEFAULT 'ready'
              CHECK (state IN ('ready','delivering','delivered','needs_review','cancelled')),
  text        TEXT NOT NULL,
  payload     TEXT NOT NULL,
  created_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX wakes_session ON wakes(session_id, id);

-- The vault: secret values by key, and who resolved them.
CREATE TABLE vault (
  key        TEXT PRIMARY KEY,
  value      TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE vault_audit (
  id         INTEGER PRIMARY KEY,
  key        TEXT NOT NULL,
  session_id TEXT NOT NULL,
  monitor_id TEXT NOT NULL,
  purpose    TEXT NOT NULL CHECK (purpose IN ('start','resume')),
  at         INTEGER NOT NULL
) STRICT;
CREATE INDEX vault_audit_key ON vault_audit(key);
