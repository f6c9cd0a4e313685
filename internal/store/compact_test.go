package store

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/papermem/papermem/internal/testdb"
)

// TestCompactVectors builds a database as the build before the compact
// vector format left it (float32 vectors and the bits column, in two
// workspaces, one node deleted), opens it, and checks that the migration
// rewrote every row in the compact format, that a deletion still moves the
// workspace's versions, that the search index reads
// each workspace's nodes with vectors that quantise as the float32 ones
// did (the same int8 components, scale and sign bits: the same ranking),
// that the workspaces' versions did not move, that bits is gone, and
// that new vectors are stored and read beside the converted ones.
func TestCompactVectors(t *testing.T) {
	ctx := context.Background()
	path := testdb.Path(t)
	engine := EngineOf(path)
	before := map[Engine]string{SQLite: "0013", Postgres: "0005"}[engine]
	old := openOld(t, path, before)

	const dim = 616
	r := rand.New(rand.NewPCG(1, 2))
	want := map[int64][]float32{} // by node id
	orgs := []string{"lab-a", "lab-b"}
	tx, err := old.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for i, org := range orgs {
		if err := EnsureWorkspace(ctx, tx, org, "offline", dim, "2026-01-01T00:00:00.000Z"); err != nil {
			t.Fatal(err)
		}
		ns := make([]Node, 300+i) // more than a batch of compactVectors with both
		for j := range ns {
			ns[j] = Node{Label: "Passage", Parent: -1, Text: fmt.Sprint(org, " text ", j), Tokens: 3}
		}
		var ids []int64 // inserted as that schema takes them (no num)
		for j, n := range ns {
			var id int64
			if err := tx.QueryRowContext(ctx, `INSERT INTO nodes (org_id, kind, owner_id, label, seq, text, tokens, created_at)
				VALUES (?, 'document', 1, ?, ?, ?, ?, '2026-01-01T00:00:00.000Z') RETURNING id`, org, n.Label, j, n.Text, n.Tokens).Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		for j, id := range ids {
			v := make([]float32, dim)
			if j > 0 { // the first a zero vector
				for k := range v {
					v[k] = float32(r.NormFloat64())
				}
				unit(v)
			}
			want[id] = v
			if _, err := tx.ExecContext(ctx, `INSERT INTO node_vectors (node_id, org_id, embedding, bits) VALUES (?, ?, ?, ?)`,
				id, org, float32Blob(v), []byte{}); err != nil {
				t.Fatal(err)
			}
		}
		if err := BumpNodesVersion(ctx, tx, org); err != nil {
			t.Fatal(err)
		}
	}
	var gone int64
	if err := tx.QueryRowContext(ctx, `SELECT max(node_id) FROM node_vectors WHERE org_id = ?`, "lab-a").Scan(&gone); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM node_vectors WHERE node_id = ?`, gone); err != nil {
		t.Fatal(err)
	}
	delete(want, gone)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	versions := workspaceVersions(t, old)
	old.Close()

	db, err := Open(ctx, path, SyncNormal)
	if err != nil {
		t.Fatalf("open a database of float32 vectors: %v", err)
	}
	defer db.Close()
	if got := workspaceVersions(t, db.Read); got != versions {
		t.Errorf("workspaces' versions moved: %s, were %s", got, versions)
	}
	var rows, compact int
	if err := db.Read.QueryRowContext(ctx, `SELECT count(*), count(CASE WHEN length(embedding) = ? THEN 1 END) FROM node_vectors`, 4+dim).Scan(&rows, &compact); err != nil {
		t.Fatal(err)
	}
	if rows != len(want) || compact != rows {
		t.Errorf("%d of %d rows of %d bytes, want %d", compact, rows, 4+dim, len(want))
	}
	if _, err := db.Read.ExecContext(ctx, `SELECT bits FROM node_vectors`); err == nil {
		t.Error("node_vectors.bits is still there")
	}
	// The trigger of the table built anew counts a deletion.
	if _, err := db.Write.ExecContext(ctx, `DELETE FROM node_vectors WHERE org_id = ? AND node_id = ?`, "lab-b", gone+1); err != nil {
		t.Fatal(err)
	}
	delete(want, gone+1)
	if got, want := workspaceVersions(t, db.Read), "lab-a 2/1; lab-b 2/1; "; versions != "lab-a 2/1; lab-b 1/0; " || got != want {
		t.Errorf("versions after a deletion in lab-b: %s, want %s (were %s)", got, want, versions)
	}

	// A new vector, stored by this build, beside the converted ones.
	wtx, err := db.Write.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	ns := []Node{{Label: "Passage", Parent: -1, Text: "new", Tokens: 1, Vec: want[gone-1]}}
	if err := putNodes(ctx, wtx, Owner{Org: "lab-b", Kind: kindDocument, ID: 2}, ns, "2026-01-02T00:00:00.000Z"); err != nil {
		t.Fatal(err)
	}
	if err := wtx.Commit(); err != nil {
		t.Fatal(err)
	}
	want[ns[0].ID] = ns[0].Vec

	seen := 0
	for _, org := range orgs {
		snap, err := SnapshotNodes(ctx, db.Read, org)
		if err != nil {
			t.Fatal(err)
		}
		err = snap.Nodes(ctx, 0, kindPaper, func(n IndexedNode) error {
			seen++
			v, ok := want[n.ID]
			if !ok {
				return fmt.Errorf("%s: node %d read, not stored", org, n.ID)
			}
			q, scale := AppendInt8(nil, v)
			if n.Vector.Dim() != len(q) || n.Vector.Scale() != scale {
				return fmt.Errorf("%s: node %d: %d components × %g, the float32 vector %d × %g", org, n.ID, n.Vector.Dim(), n.Vector.Scale(), len(q), scale)
			}
			for i, x := range v {
				got, positive := n.Vector.Component(i)
				if got != q[i] {
					return fmt.Errorf("%s: node %d: component %d quantises to %d, in the float32 vector to %d", org, n.ID, i, got, q[i])
				}
				if positive != (x > 0) {
					return fmt.Errorf("%s: node %d: component %d above zero %v, was %g: another sign bit", org, n.ID, i, positive, x)
				}
			}
			return nil
		})
		snap.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	if seen != len(want) {
		t.Errorf("the index read %d nodes, want %d", seen, len(want))
	}
}

// openOld opens the database at path, migrated as a build whose last
// migration came before the one named stop, with neither papermem's
// connection settings nor its read pool.
func openOld(t *testing.T, path, stop string) *sql.DB {
	t.Helper()
	var db *sql.DB
	var err error
	if EngineOf(path) == Postgres {
		db, err = OpenSQL(path, true)
	} else {
		db, err = sql.Open("sqlite3", "file:"+path+"?_foreign_keys=1&_txlock=immediate")
	}
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	if err := migrateBefore(context.Background(), db, EngineOf(path), stop); err != nil {
		t.Fatal(err)
	}
	return db
}

// workspaceVersions returns every workspace's vec_version and del_version.
func workspaceVersions(t *testing.T, q Querier) string {
	t.Helper()
	rows, err := q.QueryContext(context.Background(), `SELECT org_id, vec_version, del_version FROM workspaces ORDER BY org_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var s string
	for rows.Next() {
		var org string
		var vec, del int64
		if err := rows.Scan(&org, &vec, &del); err != nil {
			t.Fatal(err)
		}
		s += fmt.Sprintf("%s %d/%d; ", org, vec, del)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return s
}
