-- rate_buckets: the token buckets of the rate limits shared by every
-- server over the database, as SQLite's 0010_rate_buckets.sql describes:
-- one theoretical arrival time (tat, Unix nanoseconds) per bucket, and the
-- decision of its last request (granted, 0/1) read back through RETURNING.
-- Every request updates its bucket's row: no column it changes is indexed,
-- and half of each page is left free, so that the new version goes on the
-- same page (a HOT update) and the old one is pruned there, without index
-- entries to add or vacuum.
CREATE TABLE rate_buckets (
	org_id  TEXT COLLATE "C" NOT NULL,
	bucket  TEXT COLLATE "C" NOT NULL,
	tat     BIGINT NOT NULL,
	granted BIGINT NOT NULL,
	PRIMARY KEY (org_id, bucket)
) WITH (fillfactor = 50);
