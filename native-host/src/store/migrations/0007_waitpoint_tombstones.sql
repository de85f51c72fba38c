-- Waitpoints removed with their session (design.md §5): a late signal hears 410 Gone, not 404, and
-- does not count toward the miss budget. Kept 3 days, like resolved waitpoints.
CREATE TABLE waitpoint_tombstones (
  id          TEXT PRIMARY KEY,
  secret_hash TEXT NOT NULL,     -- a signal must still prove it holds the secret
  removed_at  INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
