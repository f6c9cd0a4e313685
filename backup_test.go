package papermem_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testutil"
)

// TestBackupUnderWriteLoad backs the database up while four writers store
// papers, then opens the copy as a database: integrity_check is ok, it
// holds every paper acknowledged before the backup began and only papers
// that were stored whole (each with its nodes and vectors), and it
// recalls them. A second backup to the same file is refused.
func TestBackupUnderWriteLoad(t *testing.T) {
	testdb.SQLiteOnly(t, "VACUUM INTO copies the SQLite file (TestBackupPostgres covers PostgreSQL)")
	dir := t.TempDir()
	m, err := papermem.Open(ctx, filepath.Join(dir, "live.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	store := func(doi string) error {
		_, _, err := m.StorePaper(ctx, papermem.PaperInput{DOI: doi, Title: "Backup " + doi,
			Text: "Melatonin shortened sleep latency by 9 minutes. Caffeine lengthened it by 14 minutes (p = 0.01)."})
		return err
	}
	for i := range 20 {
		if err := store(fmt.Sprintf("10.7/before%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	var stored atomic.Int64
	for g := range 4 {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				if err := store(fmt.Sprintf("10.7/w%d-%d", g, i)); err != nil {
					t.Error(err)
					return
				}
				stored.Add(1)
			}
		})
	}
	// Back up once the writers are well under way.
	for deadline := time.Now().Add(30 * time.Second); stored.Load() < 8 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	dest := filepath.Join(dir, "copy.db")
	size, err := m.Backup(context.Background(), dest)
	stop.Store(true)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if size == 0 {
		t.Fatal("empty backup")
	}
	if _, err := m.Backup(ctx, dest); papermem.ErrorCode(err) != papermem.EINVALID {
		t.Errorf("backup over an existing file: %v, want EINVALID", err)
	}

	raw := testutil.OpenChecked(t, dest)
	var papers, whole int
	err = raw.QueryRow(`SELECT count(*), count(*) FILTER (WHERE EXISTS
		(SELECT 1 FROM nodes n JOIN node_vectors v ON v.node_id = n.id WHERE n.kind = 'paper' AND n.owner_id = p.id))
		FROM papers p`).Scan(&papers, &whole)
	if err != nil {
		t.Fatal(err)
	}
	if papers < 20 || whole != papers {
		t.Fatalf("copy holds %d papers, %d with nodes and vectors; want at least 20, all whole", papers, whole)
	}

	c, err := papermem.Open(ctx, dest, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := range 20 {
		if ok, err := c.PaperExists(ctx, fmt.Sprintf("10.7/before%d", i)); err != nil || !ok {
			t.Fatalf("paper %d acknowledged before the backup is missing from it (%v)", i, err)
		}
	}
	q := papermem.RecallRequest{Question: "Does caffeine lengthen sleep latency?", Label: "Any", BudgetTokens: 300}
	live, err := m.Recall(ctx, q)
	if err != nil || len(live.Spans) == 0 {
		t.Fatalf("recall on the live database: %+v, %v", live, err)
	}
	// The live database has gone on taking writes, so word weights and
	// scores differ; the copy answers the question all the same.
	res, err := c.Recall(ctx, q)
	if err != nil || len(res.Spans) == 0 || !strings.Contains(res.Spans[0].Text, "Caffeine") {
		t.Fatalf("recall on the restored copy: %+v, %v; want a span about caffeine first", res, err)
	}
}

// TestBackupPostgres checks that a backup of a PostgreSQL database is
// refused with EUNSUPPORTED, naming pg_dump, and leaves no file or
// directory behind.
func TestBackupPostgres(t *testing.T) {
	if !testdb.Postgres() {
		t.Skip("PostgreSQL only: set " + testdb.Env)
	}
	m := mustOpen(t)
	dir := filepath.Join(t.TempDir(), "backups")
	if _, err := m.BackupInDir(ctx, dir); papermem.ErrorCode(err) != papermem.EUNSUPPORTED || !strings.Contains(papermem.ErrorMessage(err), "pg_dump") {
		t.Errorf("BackupInDir: %v, want EUNSUPPORTED naming pg_dump", err)
	}
	dest := filepath.Join(t.TempDir(), "copy.db")
	if _, err := m.Backup(ctx, dest); papermem.ErrorCode(err) != papermem.EUNSUPPORTED {
		t.Errorf("Backup: %v, want EUNSUPPORTED", err)
	}
	for _, p := range []string{dir, dest} {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s left behind (%v)", p, err)
		}
	}
}
