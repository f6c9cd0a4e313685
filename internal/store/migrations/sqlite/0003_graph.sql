-- Sessions, their links to papers and claims, session-relatedness edges and
-- session export records. Every row carries the workspace id (org_id) and
-- every query filters on it. Links cascade from their endpoints: deleting a
-- paper (or re-indexing its nodes) removes the links to it, so no link ever
-- dangles.

CREATE TABLE sessions (
	id         INTEGER PRIMARY KEY,
	org_id     TEXT NOT NULL REFERENCES workspaces(org_id),
	session_id TEXT NOT NULL,
	user_id    TEXT NOT NULL DEFAULT '',
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL,
	UNIQUE (org_id, session_id)
);
CREATE INDEX sessions_user ON sessions (org_id, user_id);

-- A session used a paper. Unknown DOIs are linked to paper stubs: papers
-- rows without text (cached false) that a later store fills in.
CREATE TABLE session_papers (
	session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	paper_id   INTEGER NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
	org_id     TEXT NOT NULL,
	created_at TEXT NOT NULL,
	PRIMARY KEY (session_id, paper_id)
) WITHOUT ROWID;
CREATE INDEX session_papers_paper ON session_papers (paper_id, session_id);

-- A session used a claim (any recallable node of the workspace except a
-- per-user memory).
CREATE TABLE session_claims (
	session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	node_id    INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
	org_id     TEXT NOT NULL,
	created_at TEXT NOT NULL,
	PRIMARY KEY (session_id, node_id)
) WITHOUT ROWID;
CREATE INDEX session_claims_node ON session_claims (node_id, session_id);

-- A related edge joins sessions a < b whose paper sets overlap with
-- Jaccard weight >= the threshold of the last materialisation.
CREATE TABLE session_edges (
	a          INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	b          INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	org_id     TEXT NOT NULL,
	weight     REAL NOT NULL,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL,
	PRIMARY KEY (a, b),
	CHECK (a < b)
) WITHOUT ROWID;
CREATE INDEX session_edges_b ON session_edges (b, a);

-- One export record per session; re-exporting replaces it. steps,
-- recalled_papers, recalled_claims and metadata are JSON.
CREATE TABLE session_exports (
	id              INTEGER PRIMARY KEY,
	org_id          TEXT NOT NULL,
	session_id      INTEGER NOT NULL UNIQUE REFERENCES sessions(id) ON DELETE CASCADE,
	user_id         TEXT NOT NULL DEFAULT '',
	steps           TEXT NOT NULL DEFAULT '[]',
	recalled_papers TEXT NOT NULL DEFAULT '[]',
	recalled_claims TEXT NOT NULL DEFAULT '[]',
	metadata        TEXT NOT NULL DEFAULT '{}',
	created_at      TEXT NOT NULL,
	updated_at      TEXT NOT NULL
);
CREATE INDEX session_exports_time ON session_exports (org_id, created_at, id);
