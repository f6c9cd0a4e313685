package main

import (
	"strings"
	"testing"

	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testutil"
)

// TestOriginsUnreachableCLI stores papers on a database file while every
// origin accepts connections and never answers: a paper with its text is
// stored, and the command says once, without a warning per paper, that
// its metadata stays pending and how to turn the origins off; a DOI alone
// fails saying the same.
func TestOriginsUnreachableCLI(t *testing.T) {
	hole := testutil.BlackHole(t)
	env := map[string]string{"PAPERMEM_CROSSREF_URL": hole, "PAPERMEM_UNPAYWALL_URL": hole, "PAPERMEM_OPENALEX_URL": hole,
		"PAPERMEM_ARXIV_URL": hole, "PAPERMEM_ORIGIN_DEADLINE": "300ms"}
	db := testdb.Path(t)
	out, errOut, err := cli(t, env, "--db", db, "store", "--doi", "10.1000/a", "--title", "Vitamin D and falls", "--text", "Vitamin D did not prevent falls.")
	if err != nil || !strings.Contains(out, "stored doi:10.1000/a") {
		t.Fatalf("store with its text: %q, %v", out, err)
	}
	if strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "PAPERMEM_ORIGINS=off") || !strings.Contains(errOut, "the metadata of 1 paper stays pending") {
		t.Errorf("stderr = %q, want one line saying the metadata stays pending and how to turn the origins off", errOut)
	}
	_, _, err = cli(t, env, "--db", db, "store", "--doi", "10.1000/alone")
	if err == nil || !strings.Contains(err.Error(), "PAPERMEM_ORIGINS=off") {
		t.Errorf("DOI alone: %v, want a failure naming PAPERMEM_ORIGINS=off", err)
	}
}
