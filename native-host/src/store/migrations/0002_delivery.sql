-- Wake delivery (design.md §6): adapters, the per-session turn queue, leases, retries.
ALTER TABLE sessions ADD COLUMN webhook_secret TEXT;   -- whsec_…, shown once when the adapter is set
ALTER TABLE sessions ADD COLUMN busy_until INTEGER;    -- a turn the platform declared, until this time
ALTER TABLE sessions ADD COLUMN turn_seq INTEGER NOT NULL DEFAULT 0;

ALTER TABLE wakes ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE wakes ADD COLUMN next_attempt_at INTEGER;  -- backoff: not before this time
ALTER TABLE wakes ADD COLUMN lease_until INTEGER;      -- set while delivering
ALTER TABLE wakes ADD COLUMN turn INTEGER;             -- the session turn that carried it
ALTER TABLE wakes ADD COLUMN last_error TEXT;
ALTER TABLE wakes ADD COLUMN delivered_at INTEGER;
ALTER TABLE wakes ADD COLUMN delivered_via TEXT;
ALTER TABLE wakes ADD COLUMN output TEXT;              -- the adapter's stdout/stderr tail, shielded

CREATE INDEX wakes_pending ON wakes(session_id, state) WHERE state IN ('ready', 'delivering');

-- One ending wake per monitor, whatever its key: a one-shot monitor cannot be delivered twice.
CREATE UNIQUE INDEX wakes_one_ending ON wakes(monitor_uid) WHERE kind = 'ending';

-- Delivered and cancelled are final: no code path can send such a wake again.
CREATE TRIGGER wakes_final_states BEFORE UPDATE OF state ON wakes
WHEN OLD.state IN ('delivered', 'cancelled') AND NEW.state != OLD.state
BEGIN
  SELECT RAISE(ABORT, 'a delivered or cancelled wake is final');
END;
