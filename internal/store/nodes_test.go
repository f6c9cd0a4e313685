package store

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/papermem/papermem/internal/testdb"
)

// TestInsertNodes inserts more nodes than one statement takes, some with a
// parent among the earlier ones, and checks that the ids come back in the
// rows' order (each id's row has the seq given) and that every vector is
// stored under its node's id, with an empty value in the retired bits
// column.
func TestInsertNodes(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, testdb.Path(t), SyncNormal)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Write.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := EnsureWorkspace(ctx, tx, "lab", "test", 2, "2026-01-01T00:00:00.000Z"); err != nil {
		t.Fatal(err)
	}
	const n = 2*rowsPerInsert + 7
	rows := make([]Node, n)
	vecs := make([][]float32, n)
	for i := range rows {
		rows[i] = Node{Org: "lab", Kind: "document", OwnerID: 1, Label: "Passage", Seq: i, Text: fmt.Sprint("text ", i),
			Tokens: 2, CreatedAt: "2026-01-01T00:00:00.000Z"}
		vecs[i] = []float32{float32(i), 1}
	}
	ids, err := InsertNodes(ctx, tx, rows[:n-1])
	if err != nil {
		t.Fatal(err)
	}
	rows[n-1].ParentID = sql.NullInt64{Int64: ids[3], Valid: true}
	last, err := InsertNodes(ctx, tx, rows[n-1:])
	if err != nil {
		t.Fatal(err)
	}
	ids = append(ids, last...)
	if len(ids) != n {
		t.Fatalf("%d ids for %d rows", len(ids), n)
	}
	if err := InsertVectors(ctx, tx, "lab", ids, vecs); err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		var seq int
		var parent sql.NullInt64
		var blob []byte
		var bits int
		if err := tx.QueryRowContext(ctx, `SELECT n.seq, n.parent_id, v.embedding, length(v.bits) FROM nodes n JOIN node_vectors v ON v.node_id = n.id
			WHERE n.org_id = ? AND n.id = ?`, "lab", id).Scan(&seq, &parent, &blob, &bits); err != nil {
			t.Fatalf("node %d (id %d): %v", i, id, err)
		}
		if v := blobVector(blob); seq != i || len(v) != 2 || v[0] != float32(i) {
			t.Errorf("id %d: seq %d, vector %v, want seq and first component %d", id, seq, v, i)
		}
		if bits != 0 {
			t.Errorf("id %d: %d bytes in the retired bits column", id, bits)
		}
		if parent.Valid != (i == n-1) || (parent.Valid && parent.Int64 != ids[3]) {
			t.Errorf("id %d: parent %v", id, parent)
		}
	}
}
