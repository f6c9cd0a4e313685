-- Node vectors in a compact format, without the bits column (issue 29):
-- SQLite's 0013, which says what the format is and why. The table is built
-- anew and Go code (the step below, compactVectors in internal/store)
-- copies every row into it in the new format; dropping the old table gives
-- its space back to the system at commit, and deletes no row: the
-- node_vectors_deleted trigger does not fire. The function it calls stays as 0001 made it.
-- Writes to the old table wait from the start (an older server still
-- running, whose rows the copy would miss), and fail once it is dropped;
-- reads wait only for the drop.
LOCK TABLE node_vectors IN EXCLUSIVE MODE;
CREATE TABLE node_vectors_compact (
	node_id   BIGINT PRIMARY KEY,
	org_id    TEXT COLLATE "C" NOT NULL,
	embedding BYTEA NOT NULL
);
-- go: compactVectors
DROP TABLE node_vectors;
ALTER TABLE node_vectors_compact RENAME TO node_vectors;
ALTER INDEX node_vectors_compact_pkey RENAME TO node_vectors_pkey;
CREATE INDEX node_vectors_org ON node_vectors (org_id, node_id);
CREATE TRIGGER node_vectors_deleted AFTER DELETE ON node_vectors
	FOR EACH ROW EXECUTE FUNCTION node_vectors_deleted();
