-- Ids a workspace sees are numbered within the workspace (issue 40):
-- SQLite's 0016, which says why and how. Rows stored before keep their
-- row id as their number (num NULL, read as COALESCE(num, id)).
ALTER TABLE workspaces ADD COLUMN node_nums BIGINT NOT NULL DEFAULT 0,
	ADD COLUMN document_nums BIGINT NOT NULL DEFAULT 0;
ALTER TABLE nodes ADD COLUMN num BIGINT;
ALTER TABLE documents ADD COLUMN num BIGINT;
CREATE UNIQUE INDEX nodes_num ON nodes (org_id, (COALESCE(num, id)));
CREATE UNIQUE INDEX documents_num ON documents (org_id, (COALESCE(num, id)));
UPDATE workspaces SET
	node_nums = COALESCE((SELECT MAX(COALESCE(num, id)) FROM nodes WHERE nodes.org_id = workspaces.org_id), 0),
	document_nums = COALESCE((SELECT MAX(COALESCE(num, id)) FROM documents WHERE documents.org_id = workspaces.org_id), 0);
