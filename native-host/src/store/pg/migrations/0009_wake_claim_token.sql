-- SQLite's 0024_wake_claim_token.sql: the token of the claim that took a wake, to find after a
-- commit whose answer was lost whether the claim took (design.md §9.1).
ALTER TABLE wakes ADD COLUMN claim_token text;
