package recall_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/nodeindex"
	"github.com/papermem/papermem/internal/recall"
	"github.com/papermem/papermem/internal/scifact"
	"github.com/papermem/papermem/internal/store"
	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/wordvec"
)

// fill opens a memory at a fresh database, stores into it what add
// stores, closes it, and returns an engine over the database and its read
// pool, wired as papermem.Open wires them with the offline embedder.
func fill(t testing.TB, add func(ctx context.Context, m *papermem.Memory)) (*recall.Engine, *store.Reader) {
	t.Helper()
	return openEngine(t, stored(t, add))
}

// stored returns the path of a new database that add filled.
func stored(t testing.TB, add func(ctx context.Context, m *papermem.Memory)) string {
	t.Helper()
	ctx := context.Background()
	path := testdb.Path(t)
	m, err := papermem.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	add(ctx, m)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func openEngine(t testing.TB, path string) (*recall.Engine, *store.Reader) {
	t.Helper()
	db, err := store.Open(context.Background(), path, store.SyncNormal)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	emb := wordvec.New()
	ix, err := nodeindex.New(db.Read, nodeindex.Config{Dim: emb.Dim(), MaxBytes: papermem.DefaultIndexMaxBytes,
		TitleLabel: papermem.LabelPaper, TitledKind: papermem.KindPaper})
	if err != nil {
		t.Fatal(err)
	}
	r := db.Reader()
	// The offline embedder weighs words, so Embed goes unused.
	return recall.New(recall.Config{Index: ix, Store: r, Embed: emb.Embed, Weighted: emb}), r
}

// TestPackMatchesFullRanking checks that packing in batches, which stops
// loading once the budget is full and loads one copy of a text held many
// times, takes exactly the spans of loading and boosting every ranked node
// first, whatever the budget, keywords, scope signals and label. A third
// of the papers are stored twice more: first as a copy that is then
// retracted (so that the next copy loads after all), then after the
// original.
func TestPackMatchesFullRanking(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "eval", "scifact")
	docs, err := scifact.Corpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	claims, err := scifact.Queries(dir)
	if err != nil {
		t.Fatal(err)
	}
	path := stored(t, func(ctx context.Context, m *papermem.Memory) {
		for i, d := range docs[:min(120, len(docs))] {
			for _, doi := range []string{"10.1/r%d", "10.1/d%d", "10.1/c%d"} {
				if !strings.HasPrefix(doi, "10.1/d") && i%3 != 0 {
					continue
				}
				if _, _, err := m.StorePaper(ctx, papermem.PaperInput{DOI: fmt.Sprintf(doi, i), Title: d.Title, Text: d.Text}); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
	ctx := context.Background()
	db, err := store.Open(ctx, path, store.SyncNormal)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Write.ExecContext(ctx, `UPDATE papers SET retracted = 1 WHERE doi LIKE '10.1/r%'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	e, _ := openEngine(t, path)
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range 60 {
		c := claims[i]
		label := ""
		if i%2 == 0 {
			label = recall.LabelClaim
		}
		var keywords, signals []string
		if i%3 == 0 {
			keywords = strings.Fields(c.Text)[:2]
		}
		if i%4 == 0 {
			signals = []string{"evidence", "mechanisms"}
		}
		budget := 1 + rnd.IntN(6000)
		got, want, err := e.PackBothWays(ctx, papermem.DefaultWorkspace, label, c.Text, keywords, signals, budget)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("claim %d, budget %d: batched packing differs (-all first +batched):\n%s", i, budget, diff)
		}
	}
}

// TestRecallScopeGuards checks the guards of a recall scoped to papers
// beyond the node index: paper ids come only from the recall's workspace,
// and the load reads only the scope's nodes whatever the index ranked.
func TestRecallScopeGuards(t *testing.T) {
	text := "Vitamin D supplementation lowered fracture risk in older adults by 20%. Serum vitamin D rose by 40 percent."
	e, db := fill(t, func(ctx context.Context, m *papermem.Memory) {
		for _, in := range []struct{ org, doi string }{{"acme", "10.1000/shared"}, {"acme", "10.1000/acme"}, {"globex", "10.1000/shared"}, {"globex", "10.1000/other"}} {
			if _, _, err := m.Workspace(in.org).StorePaper(ctx, papermem.PaperInput{DOI: in.doi, Title: "Vitamin D " + in.doi, Text: text}); err != nil {
				t.Fatal(err)
			}
		}
	})
	ctx := context.Background()
	id := func(org, doi string) int64 {
		ids, err := store.PaperIDs(ctx, db, org, []string{doi})
		if err != nil || len(ids) != 1 {
			t.Fatalf("%s's %s: ids %v, %v", org, doi, ids, err)
		}
		return ids[0]
	}
	shared, other := id("globex", "10.1000/shared"), id("globex", "10.1000/other")

	t.Run("PaperIDs", func(t *testing.T) {
		got, err := store.PaperIDs(ctx, db, "globex", []string{"10.1000/shared", "10.1000/acme", "10.9999/absent"})
		if err != nil || !slices.Equal(got, []int64{shared}) {
			t.Errorf("globex's ids of its DOI, acme's and an absent one: %v, %v; want [%d]", got, err, shared)
		}
	})
	t.Run("Load", func(t *testing.T) {
		// Ranked unscoped: both papers' nodes.
		ranked, loaded, err := e.RankThenLoad(ctx, "globex", recall.LabelClaim, "vitamin D fracture risk", []int64{shared})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(ranked, other) {
			t.Fatalf("ranked owners %v: none of paper %d", ranked, other)
		}
		if len(loaded) == 0 {
			t.Fatalf("scoped load: no candidates")
		}
		for _, c := range loaded {
			if c.Owner != shared || c.Kind != recall.KindPaper {
				t.Errorf("scoped to paper %d, loaded %s %d: %q", shared, c.Kind, c.Owner, c.Text)
			}
		}
		if _, loaded, err := e.RankThenLoad(ctx, "globex", recall.LabelClaim, "vitamin D fracture risk", []int64{}); err != nil || len(loaded) != 0 {
			t.Errorf("empty owners loaded %d candidates, %v", len(loaded), err)
		}
	})
}
