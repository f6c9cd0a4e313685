-- What a paper's origins say of it (Crossref, OpenAlex): the journal or
-- proceedings it appeared in and the kind of work, for citations, and
-- whether it was retracted, with the notices (a JSON array of {type, doi,
-- date}) that say so.
ALTER TABLE papers ADD COLUMN journal TEXT NOT NULL DEFAULT '';
ALTER TABLE papers ADD COLUMN work_type TEXT NOT NULL DEFAULT '';
ALTER TABLE papers ADD COLUMN retracted INTEGER NOT NULL DEFAULT 0;
ALTER TABLE papers ADD COLUMN notices TEXT NOT NULL DEFAULT '[]';

-- The origins' answers, by request (the URL without the contact address),
-- so that a DOI is not looked up twice within a day. They describe public
-- works, not a workspace's memory, so the table has no org_id: every
-- workspace that asks for a DOI gets the same answer.
CREATE TABLE origin_cache (
	key        TEXT PRIMARY KEY,
	body       BLOB NOT NULL,
	fetched_at TEXT NOT NULL
);
