package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenFresh checks that a new database migrates without FTS5 (a plain
// build has no fts5 module), records every migration, and never gets the
// table the retired statements made.
func TestOpenFresh(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "fresh.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var applied, fts int
	if err := db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM schema_migrations),
		(SELECT count(*) FROM sqlite_schema WHERE name LIKE 'nodes_fts%')`).Scan(&applied, &fts); err != nil {
		t.Fatal(err)
	}
	names, err := migrations.ReadDir("migrations")
	if err != nil {
		t.Fatal(err)
	}
	if applied != len(names) || fts != 0 {
		t.Errorf("%d of %d migrations recorded, %d nodes_fts objects", applied, len(names), fts)
	}
}

// TestRetiredStatementMissing checks that a retired statement that is not
// in its migration, word for word, stops the migration rather than letting
// the statement run.
func TestRetiredStatementMissing(t *testing.T) {
	saved := retired["0001_memory.sql"]
	t.Cleanup(func() { retired["0001_memory.sql"] = saved })
	retired["0001_memory.sql"] = append([]string{"CREATE TABLE gone (x);"}, saved...)
	_, err := Open(context.Background(), filepath.Join(t.TempDir(), "fresh.db"))
	if err == nil || !strings.Contains(err.Error(), "0001_memory.sql: retired statement not found") {
		t.Fatalf("Open = %v", err)
	}
}
