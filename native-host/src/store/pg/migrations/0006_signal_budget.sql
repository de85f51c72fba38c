-- SQLite's 0020_signal_budget.sql: a waitpoint keeps its last 100 progress signals and counts the
-- ones it let go (issue #37 finding 5).
ALTER TABLE waitpoints ADD COLUMN progress_dropped bigint NOT NULL DEFAULT 0;
