-- API keys are verified from a cache in each process (auth.go). The
-- generation tells every process sharing the file that a cached key may
-- have gone: deleting a key, or changing what identifies it, bumps it,
-- whatever code or tool made the change. last_used_at does not.

CREATE TABLE api_key_generation (
	gen INTEGER NOT NULL
);
INSERT INTO api_key_generation (gen) VALUES (0);

CREATE TRIGGER api_keys_deleted AFTER DELETE ON api_keys BEGIN
	UPDATE api_key_generation SET gen = gen + 1;
END;

CREATE TRIGGER api_keys_changed AFTER UPDATE OF key_id, org_id, prefix, hash ON api_keys BEGIN
	UPDATE api_key_generation SET gen = gen + 1;
END;
