-- Core memory schema. Every row carries the workspace id (org_id) and every
-- query filters on it. Migration files are append-only: change the schema by
-- adding a new file.

CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);

CREATE TABLE workspaces (
	org_id            TEXT PRIMARY KEY,
	name              TEXT NOT NULL DEFAULT '',
	plan              TEXT NOT NULL DEFAULT 'starter',
	embedder          TEXT NOT NULL DEFAULT '',
	dim               INTEGER NOT NULL DEFAULT 0,
	token_ttl_seconds INTEGER NOT NULL DEFAULT 86400,
	vec_version       INTEGER NOT NULL DEFAULT 0, -- bumped by every change to the workspace's vectors
	created_by        TEXT NOT NULL DEFAULT '',
	created_at        TEXT NOT NULL
);

CREATE TABLE papers (
	id         INTEGER PRIMARY KEY,
	org_id     TEXT NOT NULL REFERENCES workspaces(org_id),
	doi        TEXT NOT NULL,
	title      TEXT NOT NULL DEFAULT '',
	year       INTEGER NOT NULL DEFAULT 0,
	authors    TEXT NOT NULL DEFAULT '[]',
	oa         INTEGER NOT NULL DEFAULT 0,
	source_url TEXT NOT NULL DEFAULT '',
	domain     TEXT NOT NULL DEFAULT '',
	text       TEXT NOT NULL DEFAULT '',
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL,
	UNIQUE (org_id, doi)
);

CREATE TABLE documents (
	id         INTEGER PRIMARY KEY,
	org_id     TEXT NOT NULL REFERENCES workspaces(org_id),
	name       TEXT NOT NULL,
	format     TEXT NOT NULL,
	title      TEXT NOT NULL DEFAULT '',
	domain     TEXT NOT NULL DEFAULT '',
	bytes      INTEGER NOT NULL DEFAULT 0,
	created_at TEXT NOT NULL
);

CREATE TABLE analyses (
	id               INTEGER PRIMARY KEY,
	org_id           TEXT NOT NULL REFERENCES workspaces(org_id),
	doi              TEXT NOT NULL,
	markdown         TEXT NOT NULL,
	core_claim       TEXT NOT NULL DEFAULT '',
	acceptance       TEXT NOT NULL DEFAULT '',
	scorecard        TEXT NOT NULL DEFAULT '',
	sharpest_flaw    TEXT NOT NULL DEFAULT '',
	claims_extracted INTEGER NOT NULL DEFAULT 0,
	created_at       TEXT NOT NULL,
	updated_at       TEXT NOT NULL,
	UNIQUE (org_id, doi)
);

CREATE TABLE memories (
	id          INTEGER PRIMARY KEY,
	org_id      TEXT NOT NULL REFERENCES workspaces(org_id),
	user_id     TEXT NOT NULL,
	key         TEXT NOT NULL,
	text        TEXT NOT NULL,
	tags        TEXT NOT NULL DEFAULT '[]',
	domain      TEXT NOT NULL DEFAULT '',
	occurred_at TEXT NOT NULL DEFAULT '',
	metadata    TEXT NOT NULL DEFAULT '{}',
	created_at  TEXT NOT NULL,
	updated_at  TEXT NOT NULL,
	UNIQUE (org_id, user_id, key)
);

-- nodes are the recallable units. kind names the owner table (paper,
-- document, analysis, memory) and owner_id its row; parent_id links a claim
-- to its passage; seq orders the nodes of one owner.
-- Node ids are never reused (AUTOINCREMENT), so an id names one node for
-- good: caches of the vector index rely on it.
CREATE TABLE nodes (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	org_id       TEXT NOT NULL,
	kind         TEXT NOT NULL,
	owner_id     INTEGER NOT NULL,
	user_id      TEXT NOT NULL DEFAULT '',
	label        TEXT NOT NULL,
	parent_id    INTEGER,
	seq          INTEGER NOT NULL DEFAULT 0,
	section      TEXT NOT NULL DEFAULT '',
	section_type TEXT NOT NULL DEFAULT 'body',
	domain       TEXT NOT NULL DEFAULT '',
	text         TEXT NOT NULL,
	tokens       INTEGER NOT NULL,
	page         INTEGER NOT NULL DEFAULT 0,
	row          INTEGER NOT NULL DEFAULT 0,
	sheet        TEXT NOT NULL DEFAULT '',
	char_start   INTEGER NOT NULL DEFAULT 0,
	char_end     INTEGER NOT NULL DEFAULT 0,
	created_at   TEXT NOT NULL
);
CREATE INDEX nodes_owner ON nodes (org_id, kind, owner_id, seq);
CREATE INDEX nodes_label ON nodes (org_id, label);

-- node_vectors holds each node's embedding (little-endian float32, unit
-- length) and its sign bits (bit i set when component i > 0, as sqlite-vec's
-- vec_quantize_binary). The bits feed an in-process Hamming prefilter; the
-- float vectors rescore its candidates with sqlite-vec's vec_distance_cosine.
CREATE TABLE node_vectors (
	node_id   INTEGER PRIMARY KEY,
	org_id    TEXT NOT NULL,
	embedding BLOB NOT NULL,
	bits      BLOB NOT NULL
);
CREATE INDEX node_vectors_org ON node_vectors (org_id, node_id);

-- Full-text index over nodes.text. The scope column holds opaque tokens for
-- the workspace, user and label so that a MATCH is narrowed before ranking;
-- its BM25 weight is zero. Rows are deleted by rowid (contentless_delete).
CREATE VIRTUAL TABLE nodes_fts USING fts5 (
	text, scope,
	content = '', contentless_delete = 1,
	tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO nodes_fts (nodes_fts, rank) VALUES ('rank', 'bm25(1.0, 0.0)');
