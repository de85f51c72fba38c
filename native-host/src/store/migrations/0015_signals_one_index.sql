-- Signals keep one index, their UNIQUE (monitor_uid, key): it also finds a waitpoint's signals (its
-- first column), so signals_monitor (monitor_uid, id) only cost a page of WAL per signal — under a
-- stream of signals to many waitpoints, a third of what each one wrote (bench/ingest.js, issue #30).
-- A waitpoint's signals are few enough to sort by id when read.
DROP INDEX signals_monitor;
