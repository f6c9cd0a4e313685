-- Retire nodes_fts, the FTS5 table of 0001: recall ranks with the in-process
-- node index (BM25 with FTS5's terms and scoring), and go-sqlite3 compiles
-- FTS5 only under a build tag, so that no plain `go build` could open a
-- database. A database created from now on never had the table (the runner
-- skips its two statements in 0001, see store.retired); here every
-- statement then does nothing.
--
-- DROP TABLE on a virtual table needs its module, and fails with "no such
-- module: fts5" without it. So the table's row is deleted from the schema
-- with writable_schema (SQLite's way to remove a virtual table whose module
-- is missing), RESET turns writable_schema off and reloads the schema, and
-- the shadow tables FTS5 made for it (plain tables) are dropped. All of it
-- runs in this migration's transaction: a failure changes nothing.
PRAGMA writable_schema = ON;
DELETE FROM sqlite_schema WHERE type = 'table' AND name = 'nodes_fts';
PRAGMA writable_schema = RESET;
DROP TABLE IF EXISTS nodes_fts_data;
DROP TABLE IF EXISTS nodes_fts_idx;
DROP TABLE IF EXISTS nodes_fts_docsize;
DROP TABLE IF EXISTS nodes_fts_config;
