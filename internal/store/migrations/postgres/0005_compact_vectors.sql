-- Node vectors in a compact format (issue 29): SQLite's 0013, which says
-- what the format is and why. Before this statement, in the same
-- transaction, Go code (compactVectors in internal/store) rewrites every
-- row in the new format, a batch of node ids at a time. The
-- old row versions are dead tuples, and their vectors (2,464 bytes, kept
-- out of line in the table's TOAST table) dead TOAST rows: autovacuum makes
-- the space reusable, VACUUM FULL node_vectors gives it back to the system
-- (docs/operations.md). Dropping bits changes the catalogue only: a row
-- keeps its empty value (one byte) until it is next written.
ALTER TABLE node_vectors DROP COLUMN bits;
