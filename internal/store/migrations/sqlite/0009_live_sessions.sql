-- Session tokens are checked against their user on every request (auth.go):
-- the user must exist in the token's workspace and not be disabled, the
-- token must carry the user's current session version, and its id (jti)
-- must not have been logged out.
--
-- disabled_at is '' for an enabled account. session_version moves when the
-- user logs out everywhere, changes their password or is disabled: tokens
-- carrying an older version are refused.
ALTER TABLE users ADD COLUMN disabled_at TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN session_version INTEGER NOT NULL DEFAULT 0;

-- revoked_sessions lists the tokens logged out one by one, each kept until
-- it would have expired anyway.
CREATE TABLE revoked_sessions (
	org_id     TEXT NOT NULL,
	user_id    TEXT NOT NULL,
	jti        TEXT NOT NULL,
	expires_at TEXT NOT NULL,
	PRIMARY KEY (org_id, user_id, jti)
) WITHOUT ROWID;
CREATE INDEX revoked_sessions_expiry ON revoked_sessions (org_id, expires_at);

-- Verified sessions are cached beside verified API keys, under one
-- generation (0006): it now moves on any change that may end a credential,
-- so the table gets a name that says so. Renaming rewrites 0006's triggers.
ALTER TABLE api_key_generation RENAME TO credential_generation;

CREATE TRIGGER users_changed AFTER UPDATE OF user_id, org_id, email, name, role, is_founder, disabled_at, session_version ON users BEGIN
	UPDATE credential_generation SET gen = gen + 1;
END;

CREATE TRIGGER users_deleted AFTER DELETE ON users BEGIN
	UPDATE credential_generation SET gen = gen + 1;
END;

CREATE TRIGGER sessions_revoked AFTER INSERT ON revoked_sessions BEGIN
	UPDATE credential_generation SET gen = gen + 1;
END;
