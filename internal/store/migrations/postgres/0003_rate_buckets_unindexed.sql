-- rate_buckets is updated on every request (one row per bucket): no column
-- an update changes is indexed any more, and half of each page is left
-- free, so that the new version goes on the same page (a HOT update) and
-- the old one is pruned there, without index entries to add or vacuum. With
-- the index on tat that 0002 made, none of 24,398 updates in a 3-server run
-- was HOT, and each take stepped over the dead entries. SQLite's 0011
-- drops the index too.
DROP INDEX IF EXISTS rate_buckets_tat;
ALTER TABLE rate_buckets SET (fillfactor = 50);
