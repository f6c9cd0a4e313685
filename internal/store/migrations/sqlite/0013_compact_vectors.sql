-- Node vectors in a compact format (issue 29). node_vectors.embedding held
-- a node's vector as its float32 components little-endian, 4·dim bytes
-- (2,464 for the offline embedder's 616 dimensions, so that a 4 KiB page
-- held one row); it now holds the int8 quantisation that the search index
-- ranks with, with its scale, 4+dim bytes (620):
--
--   bytes 0-3      the scale s, float32 little-endian: max|v[i]|/127
--   bytes 4..4+dim one int8 a component, v[i]/s rounded half away from
--                  zero; -128 for a component above zero that rounds to 0
--
-- decoded as s·q[i] (s/4 for -128); internal/store/vectors.go says why.
--
-- bits, each vector's sign bits, has been written empty and read by
-- nothing since the search index took the signs from the vectors; it went
-- on only so that older servers could run beside newer ones, which this
-- migration ends: an older server refuses to open the database (it does
-- not know this migration), and one already running fails to write
-- vectors (it writes bits) and to load new ones into its index (it reads
-- 4+dim bytes as (4+dim)/4 float32 components, not its dimensions).
--
-- SQL cannot quantise a float32 blob: the table is built anew, and Go code
-- (the step below, compactVectors in internal/store) copies every row into
-- it in the new format, in node id order. Rows shrunk where they lie would
-- leave every page of the table holding one row; copied, they fill them.
-- The old table's pages stay in the file, free for new rows, until a
-- VACUUM (docs/operations.md). Dropping a table deletes no row: the
-- node_vectors_deleted trigger does not fire, and the workspaces' versions
-- stay as they are, since the search index holds the same vectors.
CREATE TABLE node_vectors_compact (
	node_id   INTEGER PRIMARY KEY,
	org_id    TEXT NOT NULL,
	embedding BLOB NOT NULL
);
-- go: compactVectors
DROP TABLE node_vectors;
ALTER TABLE node_vectors_compact RENAME TO node_vectors;
CREATE INDEX node_vectors_org ON node_vectors (org_id, node_id);
CREATE TRIGGER node_vectors_deleted AFTER DELETE ON node_vectors BEGIN
	UPDATE workspaces SET del_version = del_version + 1, vec_version = vec_version + 1
	WHERE org_id = OLD.org_id;
END;
