-- Where a paper's metadata stands (issue 39): "pending" while a
-- background job is to ask its origins, "complete" once they answered (or
-- had nothing to add), "unavailable" when none can be asked (origins off,
-- no DOI) or the job gave up. Papers stored before this migration were
-- looked up as they were stored.
ALTER TABLE papers ADD COLUMN metadata TEXT NOT NULL DEFAULT 'complete';

-- The background jobs: a durable queue that every server over the database
-- takes from (jobs.go). kind names the work ("metadata": fill a paper from
-- its origins); org_id and subject (a paper's DOI) say what it is about,
-- once per kind; args are the kind's own (for metadata, "fresh": skip the
-- origins' cache). A job is due from run_after; a server takes it by
-- setting leased_until (and lease_owner) and deletes it when done, unless
-- version changed meanwhile (it was enqueued again: run again). A job
-- whose lease ran out (its server died) is due again. attempts counts the
-- takes that failed or were cut short; last_error is the last failure.
CREATE TABLE jobs (
	id           INTEGER PRIMARY KEY,
	kind         TEXT NOT NULL,
	org_id       TEXT NOT NULL,
	subject      TEXT NOT NULL,
	args         TEXT NOT NULL DEFAULT '',
	version      INTEGER NOT NULL DEFAULT 1,
	attempts     INTEGER NOT NULL DEFAULT 0,
	run_after    TEXT NOT NULL,
	leased_until TEXT NOT NULL DEFAULT '',
	lease_owner  TEXT NOT NULL DEFAULT '',
	last_error   TEXT NOT NULL DEFAULT '',
	created_at   TEXT NOT NULL,
	UNIQUE (kind, org_id, subject)
);
CREATE INDEX jobs_due ON jobs (run_after);
