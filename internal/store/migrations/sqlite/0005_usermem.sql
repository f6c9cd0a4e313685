-- Conversation order of per-user memories. session groups the memories of
-- one conversation (metadata.session, '' for none) and seq orders them
-- within it after occurred_at (metadata.seq, 0 when absent); recall uses
-- them to bring a hit's neighbouring turns.
ALTER TABLE memories ADD COLUMN session TEXT NOT NULL DEFAULT '';
ALTER TABLE memories ADD COLUMN seq REAL NOT NULL DEFAULT 0;

UPDATE memories SET
	session = CASE json_type(metadata, '$.session')
		WHEN 'text' THEN json_extract(metadata, '$.session')
		WHEN 'integer' THEN CAST(json_extract(metadata, '$.session') AS TEXT)
		WHEN 'real' THEN CAST(json_extract(metadata, '$.session') AS TEXT)
		ELSE '' END,
	seq = CASE WHEN json_type(metadata, '$.seq') IN ('integer', 'real') THEN json_extract(metadata, '$.seq') ELSE 0 END
WHERE json_valid(metadata);

CREATE INDEX memories_session ON memories (org_id, user_id, session, occurred_at, seq, id);
