-- The citation links of a workspace's papers, as their origins (OpenAlex,
-- Crossref) give them: each paper's references and the works citing it,
-- kept per workspace (org_id) and removed with the paper. work_key names
-- the work at the other end for matching across papers: its DOI, else
-- "openalex:<id>", else '' (a reference known by its text alone).
CREATE TABLE citation_links (
	paper_id    INTEGER NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
	direction   TEXT NOT NULL CHECK (direction IN ('reference', 'citer')),
	ord         INTEGER NOT NULL,
	org_id      TEXT NOT NULL,
	work_key    TEXT NOT NULL DEFAULT '',
	doi         TEXT NOT NULL DEFAULT '',
	openalex_id TEXT NOT NULL DEFAULT '',
	title       TEXT NOT NULL DEFAULT '',
	year        INTEGER NOT NULL DEFAULT 0,
	text        TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (paper_id, direction, ord)
) WITHOUT ROWID;
CREATE INDEX citation_links_work ON citation_links (org_id, work_key, direction);

-- When a paper's links were last read from its origins, where each list
-- came from ('openalex', 'crossref' or '' for none), and
-- how many the origins count (more than were kept when over the bounds).
-- status is 'fetched', or 'unknown' when no origin knows the DOI.
CREATE TABLE citation_fetches (
	paper_id     INTEGER PRIMARY KEY REFERENCES papers(id) ON DELETE CASCADE,
	org_id       TEXT NOT NULL,
	status       TEXT NOT NULL,
	refs_from    TEXT NOT NULL DEFAULT '',
	citers_from  TEXT NOT NULL DEFAULT '',
	refs_total   INTEGER NOT NULL DEFAULT 0,
	citers_total INTEGER NOT NULL DEFAULT 0,
	fetched_at   TEXT NOT NULL
);
