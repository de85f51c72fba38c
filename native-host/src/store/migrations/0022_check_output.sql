-- A check keeps its exit code and the tail of its output (issue #38 item 1): the last 200 lines or
-- 32 KiB, shielded. Only two checks per monitor hold output (store/checks.ts): the latest, and the
-- latest failing one (an error or a non-zero exit); older ones lose theirs when a newer one comes,
-- so a chatty monitor holds at most 64 KiB of output. Deleting the check (the cap of 100, its
-- monitor) deletes its output.
ALTER TABLE checks ADD COLUMN exit_code INTEGER;
ALTER TABLE checks ADD COLUMN output TEXT;
