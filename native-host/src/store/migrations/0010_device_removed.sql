-- When a collected file's removal from its device was confirmed (design.md §5). Only such names may
-- be forgotten, once DEVICE_COLLECTED_RETENTION_MS (7 days) has passed; a name whose file may still
-- be on the device is kept, so that file can never be applied a second time.
ALTER TABLE device_collected ADD COLUMN removed_at INTEGER;
CREATE INDEX device_collected_removed ON device_collected(removed_at) WHERE removed_at IS NOT NULL;
