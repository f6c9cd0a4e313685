-- The in-process node index of each process (index.go) loads new nodes by
-- id and must look for deleted ones only when some were deleted: del_version
-- counts deletions from node_vectors, whatever code or tool made them, and
-- vec_version moves with it so that every index catches up.
ALTER TABLE workspaces ADD COLUMN del_version INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER node_vectors_deleted AFTER DELETE ON node_vectors BEGIN
	UPDATE workspaces SET del_version = del_version + 1, vec_version = vec_version + 1
	WHERE org_id = OLD.org_id;
END;
