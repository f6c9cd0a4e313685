package store

import (
	"context"
	"testing"

	"github.com/papermem/papermem/internal/testdb"
)

// TestNumbersOfOlderRows builds a database as the build before per-workspace
// numbers left it (documents and nodes of two workspaces, their ids shared
// by both), opens it, and checks that the rows kept their ids as their
// numbers, found by them, and that new rows of each workspace are numbered
// after its own largest, a new workspace's from 1.
func TestNumbersOfOlderRows(t *testing.T) {
	ctx := context.Background()
	path := testdb.Path(t)
	before := map[Engine]string{SQLite: "0016", Postgres: "0008"}[EngineOf(path)]
	old := openOld(t, path, before)
	tx, err := old.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	const at = "2026-01-01T00:00:00.000Z"
	oldDocs := map[string][]int64{}
	oldNodes := map[string][]int64{}
	for _, org := range []string{"lab-a", "lab-b", "lab-a", "lab-b", "lab-b"} { // interleaved, as tenants store
		if err := EnsureWorkspace(ctx, tx, org, "offline", 4, at); err != nil {
			t.Fatal(err)
		}
		var doc, node int64
		if err := tx.QueryRowContext(ctx, `INSERT INTO documents (org_id, name, format, created_at) VALUES (?, 'a.md', 'markdown', ?) RETURNING id`,
			org, at).Scan(&doc); err != nil {
			t.Fatal(err)
		}
		if err := tx.QueryRowContext(ctx, `INSERT INTO nodes (org_id, kind, owner_id, label, text, tokens, created_at)
			VALUES (?, 'document', ?, 'Document', 'text', 1, ?) RETURNING id`, org, doc, at).Scan(&node); err != nil {
			t.Fatal(err)
		}
		oldDocs[org] = append(oldDocs[org], doc)
		oldNodes[org] = append(oldNodes[org], node)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	old.Close()

	db, err := Open(ctx, path, SyncNormal)
	if err != nil {
		t.Fatalf("open a database of shared ids: %v", err)
	}
	defer db.Close()
	for org, ids := range oldNodes {
		nums, err := nodeNums(ctx, db.Reader(), db.Engine, org, ids)
		if err != nil || len(nums) != len(ids) {
			t.Fatalf("nodeNums(%s) = %v, %v", org, nums, err)
		}
		byNum, err := NodesNotOfKind(ctx, db.Reader(), db.Engine, org, kindMemory, ids)
		if err != nil || len(byNum) != len(ids) {
			t.Fatalf("NodesNotOfKind(%s) = %v, %v", org, byNum, err)
		}
		for _, id := range ids {
			if nums[id] != id || byNum[id] != id {
				t.Errorf("%s's node %d: number %d, found as %d", org, id, nums[id], byNum[id])
			}
		}
		docs, err := Documents(ctx, db.Reader(), org, 10)
		if err != nil || len(docs) != len(oldDocs[org]) || docs[0].Num != oldDocs[org][len(oldDocs[org])-1] {
			t.Errorf("Documents(%s) = %+v, %v; want the old ids %v", org, docs, err, oldDocs[org])
		}
	}

	// New rows: after the workspace's own largest number; 1 in a new one.
	w := NewWriter(db, 1, 1, 0)
	defer w.Close()
	for _, c := range []struct {
		org       string
		doc, node int64
	}{
		{"lab-a", oldDocs["lab-a"][1] + 1, oldNodes["lab-a"][1] + 1},
		{"lab-c", 1, 1},
	} {
		err := w.Do(ctx, func(ctx context.Context, tx *Tx) error {
			if err := EnsureWorkspace(ctx, tx, c.org, "offline", 4, at); err != nil {
				return err
			}
			ns := []Node{{Label: "Document", Parent: -1, Text: "new", Tokens: 1, Vec: []float32{1, 0, 0, 0}}}
			doc, err := tx.StoreDocument(ctx, c.org, &Document{Name: "new.md", Format: "markdown", CreatedAt: at}, ns)
			if doc != c.doc || ns[0].Num != c.node {
				t.Errorf("%s: new document %d, node %d; want %d and %d", c.org, doc, ns[0].Num, c.doc, c.node)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// nodeNums returns the numbers of those of org's nodes ids that exist, by
// row id (e is the engine of q).
func nodeNums(ctx context.Context, q Querier, e Engine, org string, ids []int64) (map[int64]int64, error) {
	out := make(map[int64]int64, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	args := []any{org}
	rows, err := q.QueryContext(ctx, `SELECT id, COALESCE(num, id) FROM nodes `+e.NotIndexed()+` WHERE org_id = ? AND `+e.inIDs("id", ids, &args), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, num int64
		if err := rows.Scan(&id, &num); err != nil {
			return nil, err
		}
		out[id] = num
	}
	return out, rows.Err()
}
