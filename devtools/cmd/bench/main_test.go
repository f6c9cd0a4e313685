package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papermem/papermem/internal/scifact"
)

// TestRun grows a small memory through two sizes, then a second run grows
// the same database further: it stores only the papers past the stored
// ones and adds only the new nodes to the raw baselines.
func TestRun(t *testing.T) {
	data := filepath.Join("..", "..", "..", scifact.DefaultDir)
	if _, err := os.Stat(data); err != nil {
		t.Skip("no SciFact data:", err)
	}
	dir := t.TempDir()
	ctx := context.Background()
	var out bytes.Buffer
	args := []string{"-data", data, "-dir", dir, "-queries", "4", "-raw-above", "4000", "-raw-queries", "2", "-reopen", "2"}
	if err := run(ctx, append(args, "-sizes", "3000,6000"), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ingest: +", "papers/s", "bytes/node", "search index files", "raw sqlite-vec vec0 kNN", "vec0 kNN, k=200 (2 q)",
		"the first 2 of the 4 questions", "x vec0", "paper recall", "reopen: Open", "first recall", "peak RSS", "Go heap in use"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	papers1, _ := counts(t, dir)

	out.Reset()
	if err := run(ctx, append(args, "-sizes", "9000"), &out); err != nil {
		t.Fatal(err)
	}
	papers2, nodes2 := counts(t, dir)
	for _, want := range []string{fmt.Sprintf("(%s papers)", thousands(papers2)), fmt.Sprintf("ingest: +%s papers", thousands(papers2-papers1))} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("second run's output lacks %q:\n%s", want, out.String())
		}
	}
	raw, err := sql.Open("sqlite3", filepath.Join(dir, "bench-raw.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var vecs int
	if err := raw.QueryRow("SELECT count(*) FROM bench_vec").Scan(&vecs); err != nil {
		t.Fatal(err)
	}
	if vecs != nodes2 {
		t.Errorf("bench_vec holds %d vectors for %d nodes", vecs, nodes2)
	}
}

// counts returns the papers and nodes of the memory in dir.
func counts(t *testing.T, dir string) (papers, nodes int) {
	t.Helper()
	db, err := sql.Open("sqlite3", filepath.Join(dir, "bench.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow("SELECT (SELECT count(*) FROM papers), (SELECT count(*) FROM nodes)").Scan(&papers, &nodes); err != nil {
		t.Fatal(err)
	}
	return papers, nodes
}

func TestRunErrors(t *testing.T) {
	for _, args := range [][]string{{"-sizes", "200,100"}, {"-sizes", "x"}, {"-queries", "0"}} {
		if err := run(context.Background(), args, new(bytes.Buffer)); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
