-- A waitpoint keeps its last 100 progress signals (issue #37 finding 5: one job with the secret
-- stored 4,000 18 KB signals in 10 s): an older one is deleted when a newer one comes and counted
-- here, so the view can say how many progress reports there were. ok/fail signals are never deleted
-- (quorum counts them; the signal budget bounds how fast they come).
ALTER TABLE waitpoints ADD COLUMN progress_dropped INTEGER NOT NULL DEFAULT 0;
