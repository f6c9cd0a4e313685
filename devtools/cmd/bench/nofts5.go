//go:build !sqlite_fts5

package main

import (
	"context"
	"database/sql"
)

// ftsBaseline has no FTS5 to measure: go-sqlite3 compiles FTS5 only under
// the build tag sqlite_fts5. It returns the note saying so.
func ftsBaseline(context.Context, *sql.DB) (string, func(context.Context, string) error, string, error) {
	return "", nil, "(no raw FTS5 row: go-sqlite3 compiles FTS5 only with a build tag; run go run -tags sqlite_fts5 ./devtools/cmd/bench for it)", nil
}
