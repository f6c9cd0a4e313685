package papermem_test

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/testdb"
)

// v0Fixture is testdata/upgrade/v0-fts5.json: what testdata/upgrade/gen
// stored in v0-fts5.db, a database made with FTS5 before migration 0008.
type v0Fixture struct {
	Org       string   `json:"org"`
	OtherOrg  string   `json:"other_org"`
	Email     string   `json:"email"`
	Password  string   `json:"password"`
	UserID    string   `json:"user_id"`
	APIKey    string   `json:"api_key"`
	Papers    []string `json:"papers"`
	Deleted   string   `json:"deleted"`
	Document  string   `json:"document"`
	Analysis  string   `json:"analysis"`
	Memories  []string `json:"memories"`
	SessionID string   `json:"session_id"`
	OtherDOI  string   `json:"other_doi"`
	Nodes     int      `json:"nodes"`
}

// TestUpgradeFTS5Database opens a copy of a database written by papermem
// with the FTS5 table nodes_fts (in whichever build this test runs, with
// or without FTS5) and checks that migration 0008 removed the table and its
// shadow tables cleanly, that every kind of record is still there and
// found, that the schema is now the one a fresh database gets, and that
// new writes work.
func TestUpgradeFTS5Database(t *testing.T) {
	testdb.SQLiteOnly(t, "upgrades a SQLite file made by an old version")
	var f v0Fixture
	js, err := os.ReadFile(filepath.Join("testdata", "upgrade", "v0-fts5.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js, &f); err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(filepath.Join("testdata", "upgrade", "v0-fts5.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "v0.db")
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatal(err)
	}
	if n := ftsObjects(t, path); len(n) != 5 {
		t.Fatalf("fixture holds %q, want nodes_fts and its 4 shadow tables", n)
	}

	m, err := papermem.Open(ctx, path, &papermem.Options{Workspace: f.Org})
	if err != nil {
		t.Fatalf("open a database made with FTS5: %v", err)
	}
	defer m.Close()
	w := m.Workspace(f.Org)

	t.Run("Schema", func(t *testing.T) {
		if n := ftsObjects(t, path); len(n) != 0 {
			t.Errorf("left after migration: %q", n)
		}
		db := openRaw(t, path)
		var check string
		if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
			t.Errorf("integrity_check = %q, %v", check, err)
		}
		var nodes int
		if err := db.QueryRow(`SELECT count(*) FROM nodes`).Scan(&nodes); err != nil || nodes != f.Nodes {
			t.Errorf("nodes = %d, %v; want %d", nodes, err, f.Nodes)
		}
		fresh := filepath.Join(t.TempDir(), "fresh.db")
		fm, err := papermem.Open(ctx, fresh, nil)
		if err != nil {
			t.Fatal(err)
		}
		fm.Close()
		if diff := cmp.Diff(schema(t, fresh), schema(t, path)); diff != "" {
			t.Errorf("schema of the upgraded database differs from a fresh one's (-fresh +upgraded):\n%s", diff)
		}
	})
	// Its account and API key: package hosted's TestUpgradeAccounts.
	t.Run("Papers", func(t *testing.T) {
		for _, doi := range f.Papers {
			if p, err := w.Paper(ctx, doi); err != nil || p.Title == "" {
				t.Errorf("Paper(%s) = %+v, %v", doi, p, err)
			}
		}
		if _, err := w.Paper(ctx, f.Deleted); papermem.ErrorCode(err) != papermem.ENOTFOUND {
			t.Errorf("deleted paper: %v", err)
		}
		if _, err := m.Workspace(f.OtherOrg).Paper(ctx, f.OtherDOI); err != nil {
			t.Errorf("other workspace's paper: %v", err)
		}
		if _, err := w.Paper(ctx, f.OtherDOI); papermem.ErrorCode(err) != papermem.ENOTFOUND {
			t.Errorf("other workspace's paper seen from %s: %v", f.Org, err)
		}
	})
	t.Run("Recall", func(t *testing.T) {
		best, kinds := map[string]string{}, map[string]bool{}
		for _, q := range []string{"Does vitamin D prevent fractures?", "sea ice edge survey", "overnight retention of word pairs"} {
			res, err := w.Recall(ctx, papermem.RecallRequest{Question: q, Label: papermem.LabelAny, BudgetTokens: 200})
			if err != nil || len(res.Spans) == 0 {
				t.Fatalf("Recall(%q) = %+v, %v", q, res, err)
			}
			best[q] = res.Spans[0].Provenance.DOI + res.Spans[0].Provenance.Source
			for _, s := range res.Spans {
				kinds[s.Provenance.Kind] = true
				if s.Provenance.DOI == f.Deleted || s.Provenance.DOI == f.OtherDOI {
					t.Errorf("Recall(%q) returned %+v", q, s)
				}
			}
		}
		want := map[string]string{
			"Does vitamin D prevent fractures?": "10.1000/vitd",
			"sea ice edge survey":               f.Document,
			"overnight retention of word pairs": "10.1000/sleep",
		}
		if diff := cmp.Diff(want, best); diff != "" {
			t.Errorf("best spans' sources (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(map[string]bool{"paper": true, "document": true, "analysis": true}, kinds); diff != "" {
			t.Errorf("kinds of spans recalled (-want +got):\n%s", diff)
		}
		a, err := w.Analysis(ctx, f.Analysis)
		if err != nil || a.CoreClaim == "" {
			t.Errorf("Analysis = %+v, %v", a, err)
		}
	})
	t.Run("UserMemories", func(t *testing.T) {
		res, err := w.RecallUser(ctx, f.UserID, papermem.UserRecallRequest{Question: "What is the name of Ada's dog?"})
		if err != nil || len(res.Spans) == 0 || !strings.Contains(res.Spans[0].Text, "Biscuit") {
			t.Errorf("RecallUser = %+v, %v", res, err)
		}
	})
	t.Run("Sessions", func(t *testing.T) {
		page, err := w.Exports(ctx, papermem.ExportQuery{SessionID: f.SessionID})
		if err != nil || page.Count != 1 || len(page.Records[0].RecalledPapers) != 2 {
			t.Errorf("Exports = %+v, %v", page, err)
		}
		g, err := w.Graph(ctx, f.SessionID, 1)
		if err != nil || len(g.Nodes) != 3 || len(g.Edges) != 2 {
			t.Errorf("Graph = %+v, %v; want the session and its 2 papers", g, err)
		}
	})
	t.Run("Health", func(t *testing.T) {
		for _, c := range m.Health(ctx).Components {
			if c.Status != papermem.HealthOK {
				t.Errorf("component %+v", c)
			}
			if c.Name == "full_text_index" && !strings.Contains(c.Detail, "BM25") {
				t.Errorf("full_text_index detail %q", c.Detail)
			}
		}
	})
	t.Run("NewWrites", func(t *testing.T) {
		mustStore(t, w, vitaminD)
		if _, err := w.Remember(ctx, f.UserID, papermem.NoteInput{Text: "Ada moved to Lisbon in June."}); err != nil {
			t.Fatal(err)
		}
		if err := w.Forget(ctx, f.UserID, f.Memories[0]); err != nil {
			t.Fatal(err)
		}
		if err := w.DeletePaper(ctx, "10.1000/sleep"); err != nil {
			t.Fatal(err)
		}
		res, err := w.Recall(ctx, papermem.RecallRequest{Question: "randomised controlled trial across 12 countries", Label: papermem.LabelAny})
		if err != nil || len(res.Spans) == 0 || res.Spans[0].Provenance.DOI != "10.1000/vitd" ||
			!strings.Contains(res.Spans[0].Text, "12 countries") {
			t.Errorf("Recall of the new text = %+v, %v", res, err)
		}
		mem, err := w.RecallUser(ctx, f.UserID, papermem.UserRecallRequest{Question: "Where did Ada move?"})
		if err != nil || len(mem.Spans) == 0 || !strings.Contains(mem.Spans[0].Text, "Lisbon") {
			t.Errorf("RecallUser after writes = %+v, %v", mem, err)
		}
	})
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := papermem.Open(ctx, path, &papermem.Options{Workspace: f.Org})
	if err != nil {
		t.Fatalf("reopen the upgraded database: %v", err)
	}
	again.Close()
}

// openRaw opens the database file at path with database/sql alone, closed
// when the test ends.
func openRaw(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// ftsObjects lists the schema objects of nodes_fts in the database at path.
func ftsObjects(t *testing.T, path string) []string {
	t.Helper()
	return column(t, path, `SELECT name FROM sqlite_schema WHERE name LIKE 'nodes_fts%' ORDER BY name`)
}

// schema returns the database's schema objects with their SQL, and its
// applied migrations, sorted.
func schema(t *testing.T, path string) []string {
	t.Helper()
	out := column(t, path, `SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_schema
		UNION ALL SELECT 'migration ' || name FROM schema_migrations`)
	slices.Sort(out)
	return out
}

// column returns the first column of every row query returns from the
// database at path.
func column(t *testing.T, path, query string) []string {
	t.Helper()
	rows, err := openRaw(t, path).Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
