-- The side panel's search (#26, design.md §7.1): `q` is a substring of a monitor's lower-cased text:
-- its name, id, session label, waitpoint device and stored source (the view below). Building that
-- text for every monitor took 5 ms at 10,000 monitors, twice a request (counts, then the page). It is
-- kept here, lower-cased, one row per monitor, so a search reads one narrow table (1.5 ms at 10,000).
-- (A trigram FTS5 index answered in 0.2 ms but cost each arming a segment write, doubling its time.)
CREATE VIEW monitor_search_text (uid, text) AS
  SELECT m.uid, m.name || ' ' || m.id || ' ' || coalesce(s.label, '') || ' ' || coalesce(wp.device, '') || ' ' || m.source
  FROM monitors m LEFT JOIN sessions s ON s.id = m.session_id LEFT JOIN waitpoints wp ON wp.monitor_uid = m.uid;

CREATE TABLE monitor_search (
  uid  INTEGER PRIMARY KEY REFERENCES monitors(uid) ON DELETE CASCADE,
  text TEXT NOT NULL
) STRICT;

INSERT INTO monitor_search (uid, text) SELECT uid, lower(text) FROM monitor_search_text;

-- Kept in step with every column the text is made of (a deleted monitor's row goes with it).
CREATE TRIGGER monitor_search_insert AFTER INSERT ON monitors BEGIN
  INSERT INTO monitor_search (uid, text) SELECT uid, lower(text) FROM monitor_search_text WHERE uid = NEW.uid;
END;
CREATE TRIGGER monitor_search_update AFTER UPDATE OF session_id, id, name, source ON monitors BEGIN
  UPDATE monitor_search SET text = (SELECT lower(t.text) FROM monitor_search_text t WHERE t.uid = NEW.uid)
    WHERE uid = NEW.uid;
END;
CREATE TRIGGER monitor_search_session AFTER UPDATE OF id, label ON sessions BEGIN
  UPDATE monitor_search SET text = (SELECT lower(t.text) FROM monitor_search_text t WHERE t.uid = monitor_search.uid)
    WHERE uid IN (SELECT uid FROM monitors WHERE session_id IN (OLD.id, NEW.id));
END;
-- A waitpoint without a device leaves its monitor's text as it was (its device reads as '' either way).
CREATE TRIGGER monitor_search_waitpoint_insert AFTER INSERT ON waitpoints WHEN NEW.device IS NOT NULL BEGIN
  UPDATE monitor_search SET text = (SELECT lower(t.text) FROM monitor_search_text t WHERE t.uid = NEW.monitor_uid)
    WHERE uid = NEW.monitor_uid;
END;
CREATE TRIGGER monitor_search_waitpoint_update AFTER UPDATE OF monitor_uid, device ON waitpoints
  WHEN OLD.device IS NOT NEW.device OR OLD.monitor_uid != NEW.monitor_uid BEGIN
  UPDATE monitor_search SET text = (SELECT lower(t.text) FROM monitor_search_text t WHERE t.uid = monitor_search.uid)
    WHERE uid IN (OLD.monitor_uid, NEW.monitor_uid);
END;
CREATE TRIGGER monitor_search_waitpoint_delete AFTER DELETE ON waitpoints WHEN OLD.device IS NOT NULL BEGIN
  UPDATE monitor_search SET text = (SELECT lower(t.text) FROM monitor_search_text t WHERE t.uid = OLD.monitor_uid)
    WHERE uid = OLD.monitor_uid;
END;
