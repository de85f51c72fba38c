-- Reserved for issue #37 part A (seals of host-bound rows), written in parallel on another branch:
-- this empty migration only keeps the numbers contiguous here. The merge replaces it with theirs.
SELECT 1;
