//go:build sqlite_fts5

package main

import (
	"context"
	"database/sql"
	"strings"

	"github.com/papermem/papermem/internal/terms"
)

// ftsBaseline creates bench_fts in db, an FTS5 table for the nodes' text
// with the tokenizer papermem's node index reproduces, and returns the
// statement adding a node (rowid, text) to it and the raw query
// MATCH … ORDER BY rank LIMIT 200 for a question, with no note.
func ftsBaseline(ctx context.Context, db *sql.DB) (string, func(context.Context, string) error, string, error) {
	if _, err := db.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS bench_fts USING fts5 (
			text, content = '', tokenize = 'porter unicode61 remove_diacritics 2')`); err != nil {
		return "", nil, "", err
	}
	search := func(ctx context.Context, question string) error {
		var ws []string
		for _, w := range terms.Content(question) {
			ws = append(ws, `"`+w+`"`)
		}
		rows, err := db.QueryContext(ctx, `SELECT rowid FROM bench_fts WHERE bench_fts MATCH ? ORDER BY rank LIMIT 200`, strings.Join(ws, " OR "))
		if err != nil {
			return err
		}
		return drain(rows)
	}
	return "INSERT INTO bench_fts (rowid, text) VALUES (?, ?)", search, "", nil
}
