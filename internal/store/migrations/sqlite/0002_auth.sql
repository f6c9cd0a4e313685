-- Users, credentials and founders. Emails are stored lower-cased and are
-- unique across the platform; passwords only as bcrypt hashes; API keys only
-- as SHA-256 hashes of their values, found through their non-secret prefix.

CREATE TABLE users (
	user_id       TEXT PRIMARY KEY,
	org_id        TEXT NOT NULL REFERENCES workspaces(org_id),
	email         TEXT NOT NULL UNIQUE,
	name          TEXT NOT NULL DEFAULT '',
	role          TEXT NOT NULL DEFAULT 'member',
	password_hash TEXT NOT NULL,
	is_founder    INTEGER NOT NULL DEFAULT 0,
	created_at    TEXT NOT NULL,
	last_login_at TEXT NOT NULL DEFAULT ''
);
CREATE INDEX users_org ON users (org_id, created_at);

CREATE TABLE api_keys (
	key_id       TEXT PRIMARY KEY,
	org_id       TEXT NOT NULL REFERENCES workspaces(org_id),
	created_by   TEXT NOT NULL DEFAULT '',
	name         TEXT NOT NULL,
	prefix       TEXT NOT NULL,
	hash         BLOB NOT NULL,
	created_at   TEXT NOT NULL,
	last_used_at TEXT NOT NULL DEFAULT ''
);
CREATE INDEX api_keys_prefix ON api_keys (prefix);
CREATE INDEX api_keys_org ON api_keys (org_id, created_at);

CREATE INDEX workspaces_created_by ON workspaces (created_by);
