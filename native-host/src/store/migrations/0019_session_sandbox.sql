-- Issue #37 (High 2): the sandbox a session's agent runs under (Codex: its mode and writable
-- folder), and the one a check runs under, fixed on its trigger when it is armed, so that a later
-- change to the session never gives an armed check more power. JSON; NULL: none (as before).
ALTER TABLE sessions ADD COLUMN sandbox TEXT;
ALTER TABLE triggers ADD COLUMN sandbox TEXT;
