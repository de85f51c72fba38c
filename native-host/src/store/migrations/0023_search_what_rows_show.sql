-- The panel's search matches what its rows show (issue #38 item 10), not what they hide: a
-- monitor's name and id, its session's label, its waitpoint's id, device and intent, its last
-- error, last event and ending detail, and the messages of the signals it keeps ("CUDA out of
-- memory"). The stored source (a command, a URL) is never shown on a row and is no longer searched.
-- The text is still kept lower-cased in `monitor_search` (migration 0016), now by these triggers.
DROP TRIGGER monitor_search_insert;
DROP TRIGGER monitor_search_update;
DROP TRIGGER monitor_search_session;
DROP TRIGGER monitor_search_waitpoint_insert;
DROP TRIGGER monitor_search_waitpoint_update;
DROP TRIGGER monitor_search_waitpoint_delete;
DROP VIEW monitor_search_text;

CREATE VIEW monitor_search_text (uid, text) AS
  SELECT m.uid, m.name || ' ' || m.id || ' ' || coalesce(s.label, '') || ' ' || coalesce(wp.id, '') || ' '
    || coalesce(wp.device, '') || ' ' || CASE WHEN wp.monitor_uid IS NULL THEN '' ELSE coalesce(m.continuation, '') END
    || ' ' || coalesce(m.last_error, '') || ' ' || coalesce(m.last_event, '') || ' ' || coalesce(m.ending_detail, '')
    || ' ' || coalesce((SELECT group_concat(g.message, ' ') FROM signals g
                         WHERE g.monitor_uid = m.uid AND g.message IS NOT NULL), '')
  FROM monitors m LEFT JOIN sessions s ON s.id = m.session_id LEFT JOIN waitpoints wp ON wp.monitor_uid = m.uid;

DELETE FROM monitor_search;
INSERT INTO monitor_search (uid, text) SELECT uid, lower(text) FROM monitor_search_text;

-- Kept in step with every column the text is made of (a deleted monitor's row goes with it).
CREATE TRIGGER monitor_search_insert AFTER INSERT ON monitors BEGIN
  INSERT INTO monitor_search (uid, text) SELECT uid, lower(text) FROM monitor_search_text WHERE uid = NEW.uid;
END;
-- A check writes last_error (or clears it) each time: the text is made again only when a shown column changed.
CREATE TRIGGER monitor_search_update AFTER UPDATE OF session_id, id, name, continuation, last_error, last_event,
  ending_detail ON monitors
  WHEN OLD.session_id IS NOT NEW.session_id OR OLD.id IS NOT NEW.id OR OLD.name IS NOT NEW.name
    OR OLD.continuation IS NOT NEW.continuation OR OLD.last_error IS NOT NEW.last_error
    OR OLD.last_event IS NOT NEW.last_event OR OLD.ending_detail IS NOT NEW.ending_detail BEGIN
  UPDATE monitor_search SET text = (SELECT lower(t.text) FROM monitor_search_text t WHERE t.uid = NEW.uid)
    WHERE uid = NEW.uid;
END;
CREATE TRIGGER monitor_search_session AFTER UPDATE OF id, label ON sessions BEGIN
  UPDATE monitor_search SET text = (SELECT lower(t.text) FROM monitor_search_text t WHERE t.uid = monitor_search.uid)
    WHERE uid IN (SELECT uid FROM monitors WHERE session_id IN (OLD.id, NEW.id));
END;
CREATE TRIGGER monitor_search_waitpoint_insert AFTER INSERT ON waitpoints BEGIN
  UPDATE monitor_search SET text = (SELECT lower(t.text) FROM monitor_search_text t WHERE t.uid = NEW.monitor_uid)
    WHERE uid = NEW.monitor_uid;
END;
CREATE TRIGGER monitor_search_waitpoint_update AFTER UPDATE OF monitor_uid, id, device ON waitpoints
  WHEN OLD.device IS NOT NEW.device OR OLD.id IS NOT NEW.id OR OLD.monitor_uid != NEW.monitor_uid BEGIN
  UPDATE monitor_search SET text = (SELECT lower(t.text) FROM monitor_search_text t WHERE t.uid = monitor_search.uid)
    WHERE uid IN (OLD.monitor_uid, NEW.monitor_uid);
END;
CREATE TRIGGER monitor_search_waitpoint_delete AFTER DELETE ON waitpoints BEGIN
  UPDATE monitor_search SET text = (SELECT lower(t.text) FROM monitor_search_text t WHERE t.uid = OLD.monitor_uid)
    WHERE uid = OLD.monitor_uid;
END;
-- A signal's message is shown on its row (the cause, the signal list); a pruned progress report is not.
CREATE TRIGGER monitor_search_signal_insert AFTER INSERT ON signals WHEN NEW.message IS NOT NULL BEGIN
  UPDATE monitor_search SET text = (SELECT lower(t.text) FROM monitor_search_text t WHERE t.uid = NEW.monitor_uid)
    WHERE uid = NEW.monitor_uid;
END;
CREATE TRIGGER monitor_search_signal_delete AFTER DELETE ON signals WHEN OLD.message IS NOT NULL BEGIN
  UPDATE monitor_search SET text = (SELECT lower(t.text) FROM monitor_search_text t WHERE t.uid = OLD.monitor_uid)
    WHERE uid = OLD.monitor_uid;
END;
