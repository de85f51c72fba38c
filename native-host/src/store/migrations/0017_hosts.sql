-- Team mode (#27, design.md §9.1): each daemon is a host with a name and a heartbeat; a session
-- belongs to the host it was made on; a trigger that needs a machine (a command, a watch, a tab, a
-- file, a vault secret) names its host, and a lease names the host that took it. On SQLite there is
-- one host (the home's lock keeps one daemon per file); the columns are the same on both engines.
CREATE TABLE hosts (
  id           TEXT PRIMARY KEY,           -- h_ + 12 hex
  name         TEXT NOT NULL UNIQUE,       -- --host-name, default the machine's hostname
  version      TEXT NOT NULL,
  pid          INTEGER NOT NULL,
  started_at   INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL,
  stopped_at   INTEGER                     -- set by a clean stop; NULL while running or after a crash
) STRICT;

ALTER TABLE sessions ADD COLUMN host_id TEXT;      -- NULL: made before hosts; the next host to start adopts it
ALTER TABLE triggers ADD COLUMN host_id TEXT;      -- NULL: any host may run it
ALTER TABLE triggers ADD COLUMN lease_owner TEXT;  -- the host whose check holds the lease
ALTER TABLE devices ADD COLUMN host_id TEXT;       -- the host that added it collects it

-- The scheduler's next due time reads the earliest end of a lease (a check whose host died, or
-- whose result could not be recorded, is due again then) through this index, not a scan.
CREATE INDEX triggers_leased ON triggers(lease_until) WHERE lease_until IS NOT NULL;
