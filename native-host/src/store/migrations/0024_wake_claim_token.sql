-- A claim marks the wakes it takes with a token of its own (a random id, new for each claim). When
-- the answer to a claim's commit is lost (team mode: the database cut off while it committed), the
-- daemon finds by the token whether the claim took and which wakes it holds; a turn number cannot
-- tell, since a claim that did not commit leaves its number to the next (design.md §9.1).
ALTER TABLE wakes ADD COLUMN claim_token TEXT;
