package papermem

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/papermem/papermem/internal/store"
	"github.com/papermem/papermem/internal/testdb"
)

// openWithPaper opens a Memory over a new file holding paper p, closed
// when the test ends.
func openWithPaper(t *testing.T, p PaperInput) *Memory {
	t.Helper()
	ctx := context.Background()
	m, err := Open(ctx, testdb.Path(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	if _, _, err := m.StorePaper(ctx, p); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestStoreFull stores a paper into a database that has no room
// (max_page_count stands in for a full disk): ENOSPACE, nothing of the
// paper stored, integrity intact; once there is room again the same paper
// stores and is recalled.
func TestStoreFull(t *testing.T) {
	testdb.SQLiteOnly(t, "max_page_count stands in for a full disk; PostgreSQL's disk_full (53100) is classified in internal/store's TestErrors")
	ctx := context.Background()
	m := openWithPaper(t, PaperInput{DOI: "10.1/small", Title: "Small", Text: "Sleep improved recall by 20%."})
	counts := func() string {
		var papers, nodes, vecs int
		err := m.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM papers), (SELECT count(*) FROM nodes),
			(SELECT count(*) FROM node_vectors)`).Scan(&papers, &nodes, &vecs)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%d papers, %d nodes, %d vectors", papers, nodes, vecs)
	}
	before := counts()
	var pages int
	if err := m.database.Write.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := m.database.Write.ExecContext(ctx, fmt.Sprintf(`PRAGMA max_page_count = %d`, pages+2)); err != nil {
		t.Fatal(err)
	}
	big := PaperInput{DOI: "10.1/big", Title: "Big", Text: strings.Repeat("Melatonin reduced sleep latency by 12 minutes in older adults. ", 2000)}
	_, _, err := m.StorePaper(ctx, big)
	if ErrorCode(err) != ENOSPACE {
		t.Fatalf("err %v (%s), want %s", err, ErrorCode(err), ENOSPACE)
	}
	if after := counts(); after != before {
		t.Fatalf("a failed store left %s, had %s", after, before)
	}
	var check string
	if err := m.db.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check %q (%v)", check, err)
	}
	if _, err := m.database.Write.ExecContext(ctx, `PRAGMA max_page_count = 1073741823`); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.StorePaper(ctx, big); err != nil {
		t.Fatalf("after room returned: %v", err)
	}
	res, err := m.Recall(ctx, RecallRequest{Question: "Does melatonin reduce sleep latency?", BudgetTokens: 500})
	if err != nil || len(res.Spans) == 0 || res.Spans[0].Provenance.DOI != "10.1/big" {
		t.Fatalf("recall after recovery: %+v, %v", res, err)
	}
}

// TestReadsDoNotWaitForWrites holds a write transaction open and reads
// meanwhile: recall and paper lookups answer from the read pool while the
// write is still running, and see its changes once it commits.
func TestReadsDoNotWaitForWrites(t *testing.T) {
	ctx := context.Background()
	m := openWithPaper(t, PaperInput{DOI: "10.1/read", Title: "Read", Text: "Naps improved recall by 10%."})
	begun, release := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- m.write(ctx, func(ctx context.Context, tx *store.Tx) error {
			if _, err := tx.ExecContext(ctx, `UPDATE papers SET title = 'Changed' WHERE org_id = ? AND doi = '10.1/read'`, m.ws.id); err != nil {
				return err
			}
			close(begun)
			<-release
			return nil
		})
	}()
	<-begun
	p, err := m.Paper(ctx, "10.1/read")
	if err != nil || p.Title != "Read" {
		t.Fatalf("read during a write: %+v, %v (want the committed title)", p, err)
	}
	res, err := m.Recall(ctx, RecallRequest{Question: "Do naps improve recall?", Label: "Any", BudgetTokens: 200})
	if err != nil || len(res.Spans) == 0 {
		t.Fatalf("recall during a write: %+v, %v", res, err)
	}
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if p, err := m.Paper(ctx, "10.1/read"); err != nil || p.Title != "Changed" {
		t.Fatalf("after the commit: %+v, %v", p, err)
	}
}
