//go:build sqlite_fts5

// Terms against SQLite's FTS5 itself, which go-sqlite3 compiles only under
// the build tag sqlite_fts5: go test -tags sqlite_fts5 -run FTS5 ./internal/ftsterm

package ftsterm_test

import (
	"database/sql"
	"path/filepath"
	"slices"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/papermem/papermem/internal/ftsterm"
	"github.com/papermem/papermem/internal/scifact"
)

// ftsVocabulary returns the terms FTS5 itself indexes for texts.
func ftsVocabulary(t *testing.T, texts []string) map[string]bool {
	t.Helper()
	db, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), "v.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE VIRTUAL TABLE f USING fts5 (text, tokenize = 'porter unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE v USING fts5vocab (f, row)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	tx, _ := db.Begin()
	for _, s := range texts {
		if _, err := tx.Exec(`INSERT INTO f (text) VALUES (?)`, s); err != nil {
			t.Fatal(err)
		}
	}
	tx.Commit()
	rows, err := db.Query(`SELECT term FROM v`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var s string
		rows.Scan(&s)
		out[s] = true
	}
	return out
}

// TestTermsMatchFTS5 checks that Terms yields exactly the vocabulary FTS5
// builds from the same texts: every SciFact abstract and some hard cases.
func TestTermsMatchFTS5(t *testing.T) {
	texts := []string{
		"Running runners ran; the cats' caresses were generalizations.",
		"Café naïve résumé Ångström façade coöperate",
		"COVID-19 IL-6 p<0.05 CD4+ T-cells 3.5mg/kg α-synuclein β2-microglobulin",
		"日本語のテキスト 中文 한국어 Ελληνικά русский",
		"x ab abc hopping hoping sky skies ponies relational conditional",
		"a \u05b0 b x\u0301y \u0301\u0301",
	}
	docs, err := scifact.Corpus(filepath.Join("..", "..", scifact.DefaultDir))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		texts = append(texts, d.Title+" "+d.Text)
	}
	want := ftsVocabulary(t, texts)
	got := map[string]bool{}
	for _, s := range texts {
		ftsterm.Terms(s, func(term string) { got[term] = true })
	}
	var missing, extra []string
	for w := range want {
		if !got[w] {
			missing = append(missing, w)
		}
	}
	for w := range got {
		if !want[w] {
			extra = append(extra, w)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	if len(missing)+len(extra) > 0 {
		t.Errorf("of FTS5's %d terms, %d are not produced: %q; %d produced are not FTS5's: %q",
			len(want), len(missing), missing[:min(20, len(missing))], len(extra), extra[:min(20, len(extra))])
	}
}
