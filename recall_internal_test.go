package papermem

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/papermem/papermem/internal/scifact"
	"github.com/papermem/papermem/internal/testdb"
)

// scifactMemory stores the first n SciFact abstracts as papers 10.1/d0…
// and returns the memory with the corpus and the claims.
func scifactMemory(t testing.TB, n int) (*Memory, []scifact.Doc, []scifact.Query) {
	t.Helper()
	dir := filepath.Join("..", "shared", "eval", "scifact")
	docs, err := scifact.Corpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	claims, err := scifact.Queries(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Open(context.Background(), testdb.Path(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	for i, d := range docs[:min(n, len(docs))] {
		if _, _, err := m.StorePaper(context.Background(), PaperInput{DOI: fmt.Sprintf("10.1/d%d", i), Title: d.Title, Text: d.Text}); err != nil {
			t.Fatal(err)
		}
	}
	return m, docs, claims
}

// TestPackMatchesFullRanking checks that packing in batches, which stops
// loading once the budget is full, takes exactly the spans of loading and
// boosting every ranked node first, whatever the budget, keywords, scope
// signals and label.
func TestPackMatchesFullRanking(t *testing.T) {
	m, _, claims := scifactMemory(t, 120)
	ctx := context.Background()
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range 60 {
		c := claims[i]
		q := query{org: m.org, limit: candidateLimit}
		if i%2 == 0 {
			q.label = LabelClaim
		}
		var keywords, signals []string
		if i%3 == 0 {
			keywords = strings.Fields(c.Text)[:2]
		}
		if i%4 == 0 {
			signals = []string{"evidence", "mechanisms"}
		}
		budget := 1 + rnd.IntN(6000)
		hs, err := m.rank(ctx, q, c.Text, keywords)
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.pack(ctx, q, hs, keywords, signals, budget)
		if err != nil {
			t.Fatal(err)
		}
		all, err := m.loadCandidates(ctx, q, hs)
		if err != nil {
			t.Fatal(err)
		}
		rankSpans(all, keywords, signals)
		want := newPacker(budget)
		for _, c := range all {
			want.add(c.Span, c.kind+":"+strconv.FormatInt(c.ownerID, 10))
		}
		if diff := cmp.Diff(&want.res, got); diff != "" {
			t.Fatalf("claim %d, budget %d: batched packing differs (-all first +batched):\n%s", i, budget, diff)
		}
	}
}
