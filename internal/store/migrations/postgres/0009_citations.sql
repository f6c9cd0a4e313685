-- The citation links of a workspace's papers, as their origins (OpenAlex,
-- Crossref) give them: each paper's references and the works citing it,
-- kept per workspace (org_id) and removed with the paper. work_key names
-- the work at the other end for matching across papers: its DOI, else
-- "openalex:<id>", else '' (a reference known by its text alone).
-- SQLite's 0017 is the same.
CREATE TABLE citation_links (
	paper_id    BIGINT NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
	direction   TEXT COLLATE "C" NOT NULL CHECK (direction IN ('reference', 'citer')),
	ord         BIGINT NOT NULL,
	org_id      TEXT COLLATE "C" NOT NULL,
	work_key    TEXT COLLATE "C" NOT NULL DEFAULT '',
	doi         TEXT COLLATE "C" NOT NULL DEFAULT '',
	openalex_id TEXT COLLATE "C" NOT NULL DEFAULT '',
	title       TEXT COLLATE "C" NOT NULL DEFAULT '',
	year        BIGINT NOT NULL DEFAULT 0,
	text        TEXT COLLATE "C" NOT NULL DEFAULT '',
	PRIMARY KEY (paper_id, direction, ord)
);
CREATE INDEX citation_links_work ON citation_links (org_id, work_key, direction);

-- When a paper's links were last read from its origins, where each list
-- came from ('openalex', 'crossref' or '' for none), and
-- how many the origins count (more than were kept when over the bounds).
-- status is 'fetched', or 'unknown' when no origin knows the DOI.
CREATE TABLE citation_fetches (
	paper_id     BIGINT PRIMARY KEY REFERENCES papers(id) ON DELETE CASCADE,
	org_id       TEXT COLLATE "C" NOT NULL,
	status       TEXT COLLATE "C" NOT NULL,
	refs_from    TEXT COLLATE "C" NOT NULL DEFAULT '',
	citers_from  TEXT COLLATE "C" NOT NULL DEFAULT '',
	refs_total   BIGINT NOT NULL DEFAULT 0,
	citers_total BIGINT NOT NULL DEFAULT 0,
	fetched_at   TEXT COLLATE "C" NOT NULL
);
