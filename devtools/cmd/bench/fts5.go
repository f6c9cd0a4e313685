//go:build sqlite_fts5

package main

import (
	"context"
	"database/sql"
	"strings"

	"github.com/papermem/papermem/internal/terms"
)

// ftsBaseline builds bench_fts, an FTS5 table over the nodes' text with
// the tokenizer papermem's node index reproduces, and returns the raw
// query MATCH … ORDER BY rank LIMIT 200 for question i, with no note.
func ftsBaseline(ctx context.Context, db *sql.DB, questions []string) (func(int) error, string, error) {
	if _, err := db.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS bench_fts USING fts5 (
			text, content = '', tokenize = 'porter unicode61 remove_diacritics 2');
		INSERT INTO bench_fts (rowid, text)
			SELECT id, text FROM nodes WHERE id > coalesce((SELECT rowid FROM bench_fts ORDER BY rowid DESC LIMIT 1), 0)`); err != nil {
		return nil, "", err
	}
	return func(i int) error {
		var ws []string
		for _, w := range terms.Content(questions[i]) {
			ws = append(ws, `"`+w+`"`)
		}
		rows, err := db.QueryContext(ctx, `SELECT rowid FROM bench_fts WHERE bench_fts MATCH ? ORDER BY rank LIMIT 200`, strings.Join(ws, " OR "))
		if err != nil {
			return err
		}
		return drain(rows)
	}, "", nil
}
