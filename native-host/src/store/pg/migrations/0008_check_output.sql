-- SQLite's 0022_check_output.sql: a check keeps its exit code and its shielded output tail; only the
-- latest check of a monitor and its latest failing one hold output (issue #38 item 1).
ALTER TABLE checks ADD COLUMN exit_code bigint;
ALTER TABLE checks ADD COLUMN output text;
