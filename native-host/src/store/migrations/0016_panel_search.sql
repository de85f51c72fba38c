-- The side panel's search (#26, design.md §7): `q` is a case-insensitive substring of a monitor's name,
-- id, session label, waitpoint device and stored source, in this one text (store/panel.ts). Scanning
-- every monitor for it took 6 ms at 10,000 monitors, twice a request (counts, then the page). A
-- trigram index of the same text finds the candidates for a search of 3 characters or more; the
-- panel then checks each candidate against the text itself, so the index only has to hold at least
-- what matches (it folds case more widely than SQLite's lower()). It keeps no copy of the text.
CREATE VIEW monitor_search_text (uid, text) AS
  SELECT m.uid, m.name || ' ' || m.id || ' ' || coalesce(s.label, '') || ' ' || coalesce(wp.device, '') || ' ' || m.source
  FROM monitors m LEFT JOIN sessions s ON s.id = m.session_id LEFT JOIN waitpoints wp ON wp.monitor_uid = m.uid;

CREATE VIRTUAL TABLE monitor_search USING fts5(text, content = '', contentless_delete = 1, tokenize = 'trigram');

INSERT INTO monitor_search (rowid, text) SELECT uid, text FROM monitor_search_text;

-- Kept in step with every column the text is made of. A row left behind for a deleted monitor is
-- harmless (uids are never reused, and candidates are joined to monitors); a missing one is not.
CREATE TRIGGER monitor_search_insert AFTER INSERT ON monitors BEGIN
  INSERT INTO monitor_search (rowid, text) SELECT uid, text FROM monitor_search_text WHERE uid = NEW.uid;
END;
CREATE TRIGGER monitor_search_update AFTER UPDATE OF uid, session_id, id, name, source ON monitors BEGIN
  DELETE FROM monitor_search WHERE rowid IN (OLD.uid, NEW.uid);
  INSERT INTO monitor_search (rowid, text) SELECT uid, text FROM monitor_search_text WHERE uid = NEW.uid;
END;
CREATE TRIGGER monitor_search_delete AFTER DELETE ON monitors BEGIN
  DELETE FROM monitor_search WHERE rowid = OLD.uid;
END;
CREATE TRIGGER monitor_search_session AFTER UPDATE OF id, label ON sessions BEGIN
  DELETE FROM monitor_search WHERE rowid IN (SELECT uid FROM monitors WHERE session_id IN (OLD.id, NEW.id));
  INSERT INTO monitor_search (rowid, text)
    SELECT uid, text FROM monitor_search_text WHERE uid IN (SELECT uid FROM monitors WHERE session_id = NEW.id);
END;
CREATE TRIGGER monitor_search_waitpoint_insert AFTER INSERT ON waitpoints BEGIN
  DELETE FROM monitor_search WHERE rowid = NEW.monitor_uid;
  INSERT INTO monitor_search (rowid, text) SELECT uid, text FROM monitor_search_text WHERE uid = NEW.monitor_uid;
END;
CREATE TRIGGER monitor_search_waitpoint_update AFTER UPDATE OF monitor_uid, device ON waitpoints BEGIN
  DELETE FROM monitor_search WHERE rowid IN (OLD.monitor_uid, NEW.monitor_uid);
  INSERT INTO monitor_search (rowid, text)
    SELECT uid, text FROM monitor_search_text WHERE uid IN (OLD.monitor_uid, NEW.monitor_uid);
END;
CREATE TRIGGER monitor_search_waitpoint_delete AFTER DELETE ON waitpoints BEGIN
  DELETE FROM monitor_search WHERE rowid = OLD.monitor_uid;
  INSERT INTO monitor_search (rowid, text) SELECT uid, text FROM monitor_search_text WHERE uid = OLD.monitor_uid;
END;
