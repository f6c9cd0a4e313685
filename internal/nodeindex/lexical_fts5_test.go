//go:build sqlite_fts5

// The index against SQLite's FTS5 itself. go-sqlite3 compiles FTS5 only
// under the build tag sqlite_fts5, so these run when asked for:
//
//	go test -tags sqlite_fts5 -run 'FTS5|BM25' ./...
//	go test -tags sqlite_fts5 -run '^$' -bench BM25Stage ./internal/nodeindex [-args -benchdb /tmp/x/bench.db]

package nodeindex_test

import (
	"flag"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/nodeindex"
	"github.com/papermem/papermem/internal/scifact"
	"github.com/papermem/papermem/internal/store"
	"github.com/papermem/papermem/internal/terms"
	"github.com/papermem/papermem/internal/testdb"
)

// refFTS (re)builds ref_fts, an FTS5 table holding the text of workspace
// org's shared nodes (users' memories left out), only those of label
// unless it is "", with the tokenizer the index reproduces, and drops it
// when tb ends. A paper's title and abstract node is a title column and
// the rest of its text: bm25(ref_fts, 2.0, 1.0) weighs it as the index
// does.
func refFTS(tb testing.TB, db *store.DB, org, label string) {
	tb.Helper()
	if _, err := db.Write.ExecContext(ctx, `DROP TABLE IF EXISTS ref_fts;
		CREATE VIRTUAL TABLE ref_fts USING fts5 (title, text, tokenize = 'porter unicode61 remove_diacritics 2');
		INSERT INTO ref_fts (rowid, title, text) SELECT n.id, COALESCE(p.title, ''),
			CASE WHEN p.title IS NULL THEN n.text ELSE substr(n.text, length(p.title) + 2) END
		FROM nodes n LEFT JOIN papers p ON n.label = 'Paper' AND p.org_id = n.org_id AND p.id = n.owner_id
		WHERE n.org_id = ? AND n.user_id = '' AND (? = '' OR n.label = ?)`, org, label, label); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Write.ExecContext(ctx, `DROP TABLE IF EXISTS ref_fts`) })
}

// ftsMatch is an FTS5 query for any of the content words of text, as
// Part.Lexical searches them.
func ftsMatch(text string) string {
	var phrases []string
	for _, w := range terms.Content(text) {
		if p := `"` + w + `"`; !slices.Contains(phrases, p) {
			phrases = append(phrases, p)
		}
	}
	return strings.Join(phrases, " OR ")
}

// TestBM25MatchesFTS5 checks the index's BM25 search against FTS5's own
// bm25() over a table holding exactly the searched collection (the
// workspace's shared nodes): the same nodes, in the same order, with the
// same scores; also after a deletion and beside another user's memories,
// which must count in neither the ranking nor the statistics.
func TestBM25MatchesFTS5(t *testing.T) {
	testdb.SQLiteOnly(t, "FTS5 is SQLite's")
	m, path, docs, claims := scifactMemory(t, 150)
	if _, err := m.Remember(ctx, "u1", papermem.NoteInput{Text: docs[0].Text}); err != nil {
		t.Fatal(err)
	}
	db := openDB(t, path)
	x := newIndex(t, db, papermem.DefaultIndexMaxBytes)
	org := papermem.DefaultWorkspace
	var compareLabel func(stage, label string)
	compare := func(stage string) {
		t.Helper()
		for _, label := range []string{"", papermem.LabelPaper} {
			compareLabel(stage, label)
		}
	}
	compareLabel = func(stage, label string) {
		t.Helper()
		compared := 0
		refFTS(t, db, org, label)
		for _, c := range claims[:40] {
			rows, err := db.Read.QueryContext(ctx, `SELECT rowid, -bm25(ref_fts, 2.0, 1.0) FROM ref_fts WHERE ref_fts MATCH ?
				ORDER BY bm25(ref_fts, 2.0, 1.0), rowid LIMIT 20`, ftsMatch(c.Text))
			if err != nil {
				t.Fatal(err)
			}
			var want []nodeindex.Hit
			for rows.Next() {
				var h nodeindex.Hit
				rows.Scan(&h.ID, &h.Score)
				want = append(want, h)
			}
			rows.Close()
			if len(want) > 0 {
				compared++
			}
			q := shared(20)
			q.Label = label
			got := part(t, x, org).Lexical(q, c.Text)
			if len(got) != len(want) {
				t.Fatalf("%s: %q: %d hits, FTS5 %d", stage, c.Text, len(got), len(want))
			}
			for i := range want {
				if got[i].ID != want[i].ID || math.Abs(got[i].Score-want[i].Score) > 1e-9*math.Abs(want[i].Score) {
					t.Fatalf("%s: %q: hit %d = %+v, FTS5 %+v", stage, c.Text, i, got[i], want[i])
				}
			}
		}
		if compared < 30 {
			t.Fatalf("%s, label %q: only %d of 40 claims found anything", stage, label, compared)
		}
	}
	compare("stored")
	for i := range 20 {
		if err := m.DeletePaper(ctx, fmt.Sprintf("10.1/d%d", 3*i)); err != nil {
			t.Fatal(err)
		}
	}
	compare("after deletions")
	if p := part(t, x, org); p.Dead() == 0 {
		t.Fatal("no entry marked dead after deletions")
	}
	for i := range 40 {
		if err := m.DeletePaper(ctx, fmt.Sprintf("10.1/d%d", 3*i+1)); err != nil {
			t.Fatal(err)
		}
	}
	compare("after the part is rebuilt")
	if p := part(t, x, org); p.Dead() != 0 {
		t.Fatalf("%d entries dead after a quarter was deleted: the part was not rebuilt", p.Dead())
	}
}

var benchDB = flag.String("benchdb", "", "BenchmarkBM25Stage: a database built by devtools/cmd/bench -dir (default: 2,000 SciFact abstracts stored afresh)")

// BenchmarkBM25Stage measures the BM25 stage of recall (the index's best
// 200 for a SciFact claim, every label) against the raw FTS5 query
// MATCH … ORDER BY rank LIMIT 200 over the same words and nodes (in
// ref_fts, built before timing), the two alternating in one loop, and
// reports each one's mean and their ratio.
func BenchmarkBM25Stage(b *testing.B) {
	testdb.SQLiteOnly(b, "FTS5 is SQLite's")
	var path string
	var claims []scifact.Query
	if *benchDB != "" {
		var err error
		if claims, err = scifact.Queries(scifactData); err != nil {
			b.Fatal(err)
		}
		path = *benchDB
	} else {
		_, path, _, claims = scifactMemory(b, 2000)
	}
	db := openDB(b, path)
	org := papermem.DefaultWorkspace
	var nodes int
	if err := db.Read.QueryRowContext(ctx, `SELECT count(*) FROM nodes WHERE org_id = ?`, org).Scan(&nodes); err != nil {
		b.Fatal(err)
	}
	x := newIndex(b, db, papermem.DefaultIndexMaxBytes)
	q := shared(200)
	// The stage as recall runs it: the index brought up to date (one
	// version query), then the search.
	stageOnce := func(text string) {
		part(b, x, org).Lexical(q, text)
	}
	stageOnce("warm the index")
	refFTS(b, db, org, "")
	var stage, raw time.Duration
	for i := 0; b.Loop(); i++ {
		text := claims[i%len(claims)].Text
		start := time.Now()
		stageOnce(text)
		stage += time.Since(start)

		start = time.Now()
		rows, err := db.Read.QueryContext(ctx, `SELECT rowid FROM ref_fts WHERE ref_fts MATCH ? ORDER BY rank LIMIT 200`, ftsMatch(text))
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
		}
		rows.Close()
		raw += time.Since(start)
	}
	b.ReportMetric(float64(nodes), "nodes")
	b.ReportMetric(float64(stage.Microseconds())/1000/float64(b.N), "stage-ms/op")
	b.ReportMetric(float64(raw.Microseconds())/1000/float64(b.N), "fts5-ms/op")
	b.ReportMetric(float64(stage)/float64(raw), "stage/fts5")
}
