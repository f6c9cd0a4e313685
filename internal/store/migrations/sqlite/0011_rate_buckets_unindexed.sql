-- rate_buckets.tat is no longer indexed (0010 indexed it): every request
-- rewrites its bucket's tat, and on PostgreSQL an update of no indexed
-- column stays on its page (a HOT update) instead of adding index entries
-- for vacuum to clean; full buckets are pruned by a scan of the table,
-- which holds a row per credential in use. Dropped here too, so that both
-- engines keep the same schema.
DROP INDEX IF EXISTS rate_buckets_tat;
