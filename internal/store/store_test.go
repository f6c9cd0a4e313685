package store

import (
	"context"
	"database/sql"
	"path/filepath"
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
