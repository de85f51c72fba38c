-- SQLite's migration 0017 (hosts, #27) on PostgreSQL (SQLITE_SCHEMA_PARITY = 17; SQLite's 0016,
-- the panel's search table, has no counterpart: PostgreSQL reads the same text with strpos).
CREATE TABLE hosts (
  id           text PRIMARY KEY,
  name         text NOT NULL UNIQUE,
  version      text NOT NULL,
  pid          bigint NOT NULL,
  started_at   bigint NOT NULL,
  heartbeat_at bigint NOT NULL,
  stopped_at   bigint
);

ALTER TABLE sessions ADD COLUMN host_id text;
ALTER TABLE triggers ADD COLUMN host_id text;
ALTER TABLE triggers ADD COLUMN lease_owner text;
ALTER TABLE devices ADD COLUMN host_id text;

CREATE INDEX triggers_leased ON triggers(lease_until) WHERE lease_until IS NOT NULL;
