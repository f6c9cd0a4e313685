package papermem

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/papermem/papermem/internal/scifact"
	"github.com/papermem/papermem/internal/store"
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
		rel := newRelevance(c.Text)
		got, err := m.pack(ctx, q, hs, keywords, signals, budget, rel)
		if err != nil {
			t.Fatal(err)
		}
		all, err := m.loadCandidates(ctx, q, hs)
		if err != nil {
			t.Fatal(err)
		}
		scale, ok := rel.scale(hs[0].score, candidateTexts(all))
		rankSpans(all, keywords, signals, q.label == "")
		want := newPacker(budget)
		if !ok {
			all = nil
		}
		for _, c := range all {
			if c.Score *= scale; c.Score < MinSpanScore {
				break
			}
			want.add(c.Span, c.kind+":"+strconv.FormatInt(c.ownerID, 10))
		}
		if diff := cmp.Diff(&want.res, got); diff != "" {
			t.Fatalf("claim %d, budget %d: batched packing differs (-all first +batched):\n%s", i, budget, diff)
		}
	}
}

// TestRecallScopeGuards checks the guards of a recall scoped to papers
// beyond the node index: paper ids come only from the recall's workspace,
// and the load reads only the scope's nodes whatever the index ranked.
func TestRecallScopeGuards(t *testing.T) {
	ctx := context.Background()
	m, err := Open(ctx, testdb.Path(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	text := "Vitamin D supplementation lowered fracture risk in older adults by 20%. Serum vitamin D rose by 40 percent."
	for _, in := range []struct{ org, doi string }{{"acme", "10.1000/shared"}, {"acme", "10.1000/acme"}, {"globex", "10.1000/shared"}, {"globex", "10.1000/other"}} {
		if _, _, err := m.Workspace(in.org).StorePaper(ctx, PaperInput{DOI: in.doi, Title: "Vitamin D " + in.doi, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	id := func(org, doi string) int64 {
		ids, err := store.PaperIDs(ctx, m.db, org, []string{doi})
		if err != nil || len(ids) != 1 {
			t.Fatalf("%s's %s: ids %v, %v", org, doi, ids, err)
		}
		return ids[0]
	}
	shared, other := id("globex", "10.1000/shared"), id("globex", "10.1000/other")

	t.Run("PaperIDs", func(t *testing.T) {
		got, err := store.PaperIDs(ctx, m.db, "globex", []string{"10.1000/shared", "10.1000/acme", "10.9999/absent"})
		if err != nil || !slices.Equal(got, []int64{shared}) {
			t.Errorf("globex's ids of its DOI, acme's and an absent one: %v, %v; want [%d]", got, err, shared)
		}
	})
	t.Run("Load", func(t *testing.T) {
		q := query{org: "globex", label: LabelClaim}
		hs, err := m.rank(ctx, q, "vitamin D fracture risk", nil) // unscoped: both papers' nodes
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(hs, func(r ranked) bool { return r.owner == other }) {
			t.Fatalf("ranked %+v: none of paper %d", hs, other)
		}
		q.kind, q.owners = KindPaper, []int64{shared}
		cs, err := m.loadCandidates(ctx, q, hs)
		if err != nil || len(cs) == 0 {
			t.Fatalf("scoped load: %d candidates, %v", len(cs), err)
		}
		for _, c := range cs {
			if c.ownerID != shared || c.kind != KindPaper {
				t.Errorf("scoped to paper %d, loaded %s %d: %q", shared, c.kind, c.ownerID, c.Text)
			}
		}
		q.owners = []int64{}
		if cs, err := m.loadCandidates(ctx, q, hs); err != nil || len(cs) != 0 {
			t.Errorf("empty owners loaded %d candidates, %v", len(cs), err)
		}
	})
}

// TestRankSpansLength checks that among spans of every label a sentence
// ranks before a passage that scores alike, and only then.
func TestRankSpansLength(t *testing.T) {
	spans := func() []*candidate {
		return []*candidate{
			{Span: Span{NodeID: 1, Label: LabelPassage, Score: 1, Tokens: 200}},
			{Span: Span{NodeID: 2, Label: LabelClaim, Score: 0.99, Tokens: 20}},
		}
	}
	cs := spans()
	rankSpans(cs, nil, nil, true)
	if cs[0].NodeID != 2 || cs[1].Score >= 1 {
		t.Errorf("mixed labels: order %d, %d (scores %.3f, %.3f); want the claim first", cs[0].NodeID, cs[1].NodeID, cs[0].Score, cs[1].Score)
	}
	cs = spans()
	rankSpans(cs, nil, nil, false)
	if cs[0].NodeID != 1 || cs[0].Score != 1 {
		t.Errorf("one label: order %d, %d; want scores unchanged", cs[0].NodeID, cs[1].NodeID)
	}
}
