//go:build sqlite_fts5

// The floor against SQLite's FTS5 itself, which go-sqlite3 compiles only
// under the build tag sqlite_fts5: go test -tags sqlite_fts5 -run FTS5 ./internal/scifact

package scifact

import (
	"database/sql"
	"math"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"
)

// TestFloorMatchesFTS5 checks Floor.Search against FTS5's own
// bm25(t, 2.0, 1.0) over the same (title, body) rows: the same rows in the
// same order.
func TestFloorMatchesFTS5(t *testing.T) {
	dir := filepath.Join("..", "..", DefaultDir)
	docs, err := Sentences(dir)
	if err != nil {
		t.Skip("shared SciFact data not found:", err)
	}
	evs, err := EvidenceClaims(dir)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), "floor.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE VIRTUAL TABLE t USING fts5 (title, body, tokenize = 'porter unicode61 remove_diacritics 2')`); err != nil {
		t.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	var f Floor
	row := 0
	for _, d := range docs[:400] {
		for _, s := range d.Sentences {
			f.Add(d.Title, s)
			if _, err := tx.Exec(`INSERT INTO t (rowid, title, body) VALUES (?, ?, ?)`, row, d.Title, s); err != nil {
				t.Fatal(err)
			}
			row++
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, e := range evs[:60] {
		terms := FloorQuery(e.Claim)
		var phrases []string
		for _, w := range floorWord.FindAllString(strings.ToLower(e.Claim), -1) {
			if !isFloorStop(w) {
				phrases = append(phrases, `"`+w+`"`)
			}
		}
		rows, err := db.Query(`SELECT rowid, bm25(t, 2.0, 1.0) FROM t WHERE t MATCH ? ORDER BY bm25(t, 2.0, 1.0), rowid LIMIT 50`,
			strings.Join(phrases, " OR "))
		if err != nil {
			t.Fatal(err)
		}
		var want []int
		var scores []float64
		for rows.Next() {
			var r int
			var s float64
			rows.Scan(&r, &s)
			want, scores = append(want, r), append(scores, s)
		}
		rows.Close()
		got := f.Search(terms, 50)
		if len(got) != len(want) {
			t.Fatalf("%q: %d rows, FTS5 %d", e.Claim, len(got), len(want))
		}
		for i := range want {
			// Rows FTS5 scores equal to 1e-9 may come in either order.
			if got[i] != want[i] && !(i > 0 && math.Abs(scores[i]-scores[i-1]) < 1e-9) && !(i+1 < len(want) && math.Abs(scores[i]-scores[i+1]) < 1e-9) {
				t.Fatalf("%q: row %d is %d, FTS5 %d", e.Claim, i, got[i], want[i])
			}
		}
		if len(want) > 0 {
			compared++
		}
	}
	if compared < 50 {
		t.Fatalf("only %d of 60 claims matched anything", compared)
	}
}
