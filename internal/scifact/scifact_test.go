package scifact

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/papermem/papermem/internal/testenv"
)

func TestRead(t *testing.T) {
	dir := filepath.Join("..", "..", DefaultDir)
	if _, err := os.Stat(dir); err != nil {
		testenv.Need(t, "the shared SciFact data", err)
	}
	docs, err := Corpus(dir)
	if err != nil || len(docs) != 5183 || docs[0].ID == "" || docs[0].Text == "" {
		t.Fatalf("corpus: %d docs, %v", len(docs), err)
	}
	qs, err := Queries(dir)
	if err != nil || len(qs) != 809 {
		t.Fatalf("queries: %d, %v", len(qs), err)
	}
	rels, err := Qrels(dir)
	if err != nil || len(rels) == 0 {
		t.Fatalf("qrels: %d, %v", len(rels), err)
	}
	for _, q := range qs {
		if len(rels[q.ID]) == 0 {
			t.Fatalf("claim %s has no judgment", q.ID)
		}
	}
}
