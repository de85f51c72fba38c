-- Seals (#37, design.md §8): a host runs only what it armed itself. Each host keeps a random key in
-- its 0700 home ($VIGIL_HOME/host.key) and seals what decides what runs, and with what power, with
-- HMAC-SHA256 (engine/seals.ts): a host-bound trigger (its monitor uid and id, session, host, kind,
-- source) and a session's push adapter (its id, host, root, adapter, webhook secret). A row it
-- cannot verify is refused, never run. NULL: not sealed (made before this migration, or needing
-- none); SQLite seals its own rows at start (one host, the account is the boundary), PostgreSQL
-- refuses an unsealed host-bound row.
ALTER TABLE triggers ADD COLUMN seal TEXT;
ALTER TABLE sessions ADD COLUMN adapter_seal TEXT;
