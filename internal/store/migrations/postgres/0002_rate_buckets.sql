-- rate_buckets: the token buckets of the rate limits shared by every
-- server over the database, as SQLite's 0010_rate_buckets.sql describes:
-- one theoretical arrival time (tat, Unix nanoseconds) per bucket, and the
-- decision of its last request (granted, 0/1) read back through RETURNING.
CREATE TABLE rate_buckets (
	org_id  TEXT COLLATE "C" NOT NULL,
	bucket  TEXT COLLATE "C" NOT NULL,
	tat     BIGINT NOT NULL,
	granted BIGINT NOT NULL,
	PRIMARY KEY (org_id, bucket)
);
CREATE INDEX rate_buckets_tat ON rate_buckets (tat);
