-- A manual retry of a wake in needs_review sends a new message (design.md §6): `resends` counts
-- them, and the webhook's message id includes it, while automatic retries keep id and body.
ALTER TABLE wakes ADD COLUMN resends INTEGER NOT NULL DEFAULT 0;
