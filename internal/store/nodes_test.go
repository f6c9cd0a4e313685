package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"testing"
)

// TestPutNodes stores more nodes than one statement takes, the last with
// a parent among the earlier ones, and checks that the ids come back in
// the nodes' order (each id's row has the seq given) and that every vector
// is stored under its node's id, in the stored format (4 bytes of scale
// and one a component).
func TestPutNodes(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	tx, err := db.Write.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := EnsureWorkspace(ctx, tx, "lab", "test", 2, "2026-01-01T00:00:00.000Z"); err != nil {
		t.Fatal(err)
	}
	const n = 2*rowsPerInsert + 7
	ns := make([]Node, n)
	for i := range ns {
		ns[i] = Node{Label: "Passage", Parent: -1, Text: fmt.Sprint("text ", i), Tokens: 2, Vec: []float32{float32(i), 1}}
	}
	ns[n-1].Parent = 3
	if err := putNodes(ctx, tx, Owner{Org: "lab", Kind: kindDocument, ID: 1}, ns, "2026-01-01T00:00:00.000Z"); err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, n)
	for i := range ns {
		ids[i] = ns[i].ID
	}
	for i, id := range ids {
		var seq int
		var parent sql.NullInt64
		var blob []byte
		if err := tx.QueryRowContext(ctx, `SELECT n.seq, n.parent_id, v.embedding FROM nodes n JOIN node_vectors v ON v.node_id = n.id
			WHERE n.org_id = ? AND n.id = ?`, "lab", id).Scan(&seq, &parent, &blob); err != nil {
			t.Fatalf("node %d (id %d): %v", i, id, err)
		}
		if want := vectorBlob([]float32{float32(i), 1}); seq != i || !bytes.Equal(blob, want) {
			t.Errorf("id %d: seq %d, vector % x, want seq %d and % x", id, seq, blob, i, want)
		}
		if parent.Valid != (i == n-1) || (parent.Valid && parent.Int64 != ids[3]) {
			t.Errorf("id %d: parent %v", id, parent)
		}
	}
}
