-- Papers as a reference manager files them (issue 41). source names where
-- a paper was last imported from ("zotero:users/4242", "bibtex:My
-- Library.bib"; '' for a paper stored through the API), source_key the
-- item's key there (a Zotero item key, a BibTeX cite key) and
-- source_hash the hash of what was imported (metadata and attached
-- files), so that importing the same item again changes nothing.
ALTER TABLE papers ADD COLUMN source TEXT NOT NULL DEFAULT '';
ALTER TABLE papers ADD COLUMN source_key TEXT NOT NULL DEFAULT '';
ALTER TABLE papers ADD COLUMN source_hash TEXT NOT NULL DEFAULT '';
CREATE INDEX papers_source ON papers (org_id, source, source_key);

-- A paper's tags and collections (kind 'tag' or 'collection'), by name.
CREATE TABLE paper_labels (
	org_id   TEXT NOT NULL,
	paper_id INTEGER NOT NULL,
	kind     TEXT NOT NULL,
	name     TEXT NOT NULL,
	PRIMARY KEY (org_id, paper_id, kind, name)
);
CREATE INDEX paper_labels_name ON paper_labels (org_id, kind, name);

-- Imports of a library or an export file, and their progress. errors is a
-- JSON array of {item, code, message}.
CREATE TABLE imports (
	id         INTEGER PRIMARY KEY,
	org_id     TEXT NOT NULL REFERENCES workspaces(org_id),
	source     TEXT NOT NULL,
	library    TEXT NOT NULL DEFAULT '',
	status     TEXT NOT NULL,
	total      INTEGER NOT NULL DEFAULT 0,
	items      INTEGER NOT NULL DEFAULT 0,
	papers     INTEGER NOT NULL DEFAULT 0,
	documents  INTEGER NOT NULL DEFAULT 0,
	deleted    INTEGER NOT NULL DEFAULT 0,
	skipped    INTEGER NOT NULL DEFAULT 0,
	errors     TEXT NOT NULL DEFAULT '[]',
	message    TEXT NOT NULL DEFAULT '',
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
CREATE INDEX imports_org ON imports (org_id, id);

-- The version of a synced library (a Zotero library, by its API's URL and
-- path) that a workspace's last complete import reached: the next import
-- asks only for what changed since.
CREATE TABLE library_versions (
	org_id     TEXT NOT NULL,
	library    TEXT NOT NULL,
	version    INTEGER NOT NULL,
	updated_at TEXT NOT NULL,
	PRIMARY KEY (org_id, library)
);
