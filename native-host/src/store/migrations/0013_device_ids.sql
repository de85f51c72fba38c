-- Each device gets an id made when it is added (design.md §5), and a waitpoint for a device records
-- that id: a device removed and added again under the same name is a new device whose files cannot
-- signal the old one's waitpoints (#25 finding 11). `vigil devices rm` ends the device's armed
-- waitpoints (`lost`); a waitpoint whose device is gone is ended the same way when the daemon starts.
ALTER TABLE devices ADD COLUMN id TEXT;         -- dev_ + 16 hex; never NULL once added (the daemon sets it)
UPDATE devices SET id = 'dev_' || lower(hex(randomblob(8)));
CREATE UNIQUE INDEX devices_id ON devices(id);

ALTER TABLE waitpoints ADD COLUMN device_id TEXT;  -- the device's id when it was armed; NULL: local
-- Bound to today's device of that name only if armed after that device was added: a waitpoint armed
-- for an earlier device of the same name keeps NULL and is ended as orphaned at the next start.
UPDATE waitpoints SET device_id = (
  SELECT d.id FROM devices d JOIN monitors m ON m.uid = waitpoints.monitor_uid
  WHERE d.name = waitpoints.device AND m.created_at >= d.created_at
) WHERE device IS NOT NULL;
CREATE INDEX waitpoints_device_id ON waitpoints(device_id) WHERE device_id IS NOT NULL;
