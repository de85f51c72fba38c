-- Ids are never reused (design.md §9): a plain INTEGER PRIMARY KEY hands out max+1, so once the
-- newest wake (or monitor) is deleted — with its session, or purged — its number came back, and with
-- it the webhook-id and the transcript tag of an earlier wake. AUTOINCREMENT keeps the highest id ever
-- handed out in sqlite_sequence and never goes below it. SQLite cannot add it in place: both tables
-- are rebuilt (its 12-step procedure; the runner holds foreign keys off and checks them before the
-- commit), keeping every row, index, trigger and reference.
CREATE TABLE monitors_new (
  uid              INTEGER PRIMARY KEY AUTOINCREMENT,
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
INSERT INTO monitors_new (uid, session_id, id, name, kind, source, continuation, interval_ms, timeout_ms, created_at,
    state, event_count, waked_seq, last_event, last_observation, last_check_at, last_error, error_count,
    ending_reason, ending_at, ending_detail)
  SELECT uid, session_id, id, name, kind, source, continuation, interval_ms, timeout_ms, created_at,
    state, event_count, waked_seq, last_event, last_observation, last_check_at, last_error, error_count,
    ending_reason, ending_at, ending_detail
  FROM monitors;
DROP TABLE monitors;
ALTER TABLE monitors_new RENAME TO monitors;

CREATE TABLE wakes_new (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id      TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  monitor_uid     INTEGER NOT NULL REFERENCES monitors(uid) ON DELETE CASCADE,
  dedupe_key      TEXT NOT NULL UNIQUE,
  kind            TEXT NOT NULL CHECK (kind IN ('events','ending')),
  state           TEXT NOT NULL DEFAULT 'ready'
                  CHECK (state IN ('ready','delivering','delivered','needs_review','cancelled')),
  text            TEXT NOT NULL,
  payload         TEXT NOT NULL,
  created_at      INTEGER NOT NULL,
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER,               -- backoff: not before this time
  lease_until     INTEGER,               -- set while delivering
  turn            INTEGER,               -- the session turn that carried it
  last_error      TEXT,
  delivered_at    INTEGER,
  delivered_via   TEXT,
  output          TEXT,                  -- the adapter's stdout/stderr tail, shielded
  resends         INTEGER NOT NULL DEFAULT 0
) STRICT;
INSERT INTO wakes_new (id, session_id, monitor_uid, dedupe_key, kind, state, text, payload, created_at, attempts,
    next_attempt_at, lease_until, turn, last_error, delivered_at, delivered_via, output, resends)
  SELECT id, session_id, monitor_uid, dedupe_key, kind, state, text, payload, created_at, attempts,
    next_attempt_at, lease_until, turn, last_error, delivered_at, delivered_via, output, resends
  FROM wakes;
DROP TABLE wakes;
ALTER TABLE wakes_new RENAME TO wakes;
CREATE INDEX wakes_session ON wakes(session_id, id);
CREATE INDEX wakes_pending ON wakes(session_id, state) WHERE state IN ('ready', 'delivering');
CREATE UNIQUE INDEX wakes_one_ending ON wakes(monitor_uid) WHERE kind = 'ending';
CREATE TRIGGER wakes_final_states BEFORE UPDATE OF state ON wakes
WHEN OLD.state IN ('delivered', 'cancelled') AND NEW.state != OLD.state
BEGIN
  SELECT RAISE(ABORT, 'a delivered or cancelled wake is final');
END;
