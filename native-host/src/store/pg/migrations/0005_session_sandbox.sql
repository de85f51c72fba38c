-- SQLite's migration 0019 (issue #37, High 2) on PostgreSQL (SQLITE_SCHEMA_PARITY = 19): the
-- session's sandbox and the check's, fixed on its trigger when armed. JSON text; NULL: none.
ALTER TABLE sessions ADD COLUMN sandbox text;
ALTER TABLE triggers ADD COLUMN sandbox text;
