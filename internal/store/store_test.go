package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenSync checks that the synchronous setting reaches the write
// connection and the read pool (PRAGMA synchronous: 1 normal, 2 full),
// that reads cannot write, and that another setting is refused.
func TestOpenSync(t *testing.T) {
	ctx := context.Background()
	for sync, want := range map[string]int{SyncNormal: 1, SyncFull: 2} {
		t.Run(sync, func(t *testing.T) {
			db, err := Open(ctx, filepath.Join(t.TempDir(), "s.db"), sync)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for name, pool := range map[string]*sql.DB{"write": db.Write, "read": db.Read} {
				var got int
				if err := pool.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&got); err != nil || got != want {
					t.Errorf("%s: synchronous %d (%v), want %d", name, got, err, want)
				}
			}
			if _, err := db.Read.ExecContext(ctx, "INSERT INTO schema_migrations VALUES ('x', 'y')"); err == nil {
				t.Error("the read pool wrote")
			}
		})
	}
	if _, err := Open(ctx, filepath.Join(t.TempDir(), "s.db"), "off"); err == nil {
		t.Error("synchronous off accepted")
	}
}

// TestOpenFresh checks that a new database migrates without FTS5 (a plain
// build has no fts5 module), records every migration, and never gets the
// table the retired statements made.
func TestOpenFresh(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "fresh.db"), SyncNormal)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var applied, fts int
	if err := db.Read.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM schema_migrations),
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
	_, err := Open(context.Background(), filepath.Join(t.TempDir(), "fresh.db"), SyncNormal)
	if err == nil || !strings.Contains(err.Error(), "0001_memory.sql: retired statement not found") {
		t.Fatalf("Open = %v", err)
	}
}
