-- SQLite's migration 0018 (seals, #37) on PostgreSQL (SQLITE_SCHEMA_PARITY = 18). Every host holds
-- the same database credentials: a seal is what tells a host's own rows from a peer's writes.
ALTER TABLE triggers ADD COLUMN seal text;
ALTER TABLE sessions ADD COLUMN adapter_seal text;
