-- rate_buckets holds the token buckets of the rate limits that several
-- servers over one database share (httpapi.Config.SharedLimits;
-- internal/store/ratelimit.go). A bucket of N requests a minute is one
-- number, tat (its "theoretical arrival time" in Unix nanoseconds, as in
-- the generic cell rate algorithm): each request granted moves it one
-- interval (a minute / N) later, from now if it has passed, and a request
-- is refused when tat is more than a minute less one interval ahead. A
-- bucket whose tat has passed is full, the same as no row: such rows are
-- pruned. granted is the decision of the last request, read back through
-- RETURNING. org_id is '' for a bucket of no workspace (a client address).
CREATE TABLE rate_buckets (
	org_id  TEXT NOT NULL,
	bucket  TEXT NOT NULL,
	tat     INTEGER NOT NULL,
	granted INTEGER NOT NULL,
	PRIMARY KEY (org_id, bucket)
) WITHOUT ROWID;
CREATE INDEX rate_buckets_tat ON rate_buckets (tat);
