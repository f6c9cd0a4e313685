package recall_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/recall"
	"github.com/papermem/papermem/internal/scifact"
)

// TestRecallOffTopicInLargeMemory asks 2,000 SciFact abstracts about
// people's lives. Each question shares a word or two with some abstract
// ("shelter", "soup", "dinner", "paint"), which used to let it fill the
// budget, but names or things a memory that size would hold by chance if
// it were about them ("Maria", "Chicago", "writers"), so it gets nothing;
// those whose every word memory holds get only their best spans, within
// the limit of their relevance. The claims of the same abstracts still get
// their whole budget, nearly all of them, and at 500 tokens their evidence.
func TestRecallOffTopicInLargeMemory(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "eval", "scifact")
	docs, err := scifact.Corpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := scifact.EvidenceClaims(dir)
	if err != nil {
		t.Fatal(err)
	}
	docs = docs[:min(2000, len(docs))]
	doi := map[string]string{}
	e, _ := fill(t, func(ctx context.Context, m *papermem.Memory) {
		for i, d := range docs {
			doi[d.ID] = "10.1/d" + d.ID
			if _, _, err := m.StorePaper(ctx, papermem.PaperInput{DOI: doi[d.ID], Title: d.Title, Text: d.Text}); err != nil {
				t.Fatalf("paper %d: %v", i, err)
			}
		}
	})
	ctx := context.Background()
	ask := func(q string, budget int) *recall.Result {
		t.Helper()
		res, err := e.Recall(ctx, recall.Request{Workspace: papermem.DefaultWorkspace, Question: q, Label: recall.LabelClaim, Budget: recall.Budget{Tokens: budget, Fill: true}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, q := range []string{
		"When did Maria start volunteering at the homeless shelter?",
		"What spice did John add to the soup for flavor?",
		"Who did Maria have dinner with on May 3, 2023?",
		"What did Caroline paint at the lake last week?",
		"Which city was John in before traveling to Chicago?",
		"What did Joanna share with her writers group in August 2022?",
	} {
		if res := ask(q, 2000); len(res.Spans) != 0 {
			t.Errorf("%q: %d spans, %d tokens; want none", q, len(res.Spans), res.TotalTokens)
		}
	}
	for _, q := range []string{
		"When did Jon start learning marketing and analytics tools?",
		"What other exercises can help John with his basketball performance?",
		"What was discussed in the LGBTQ+ counseling workshop?",
	} {
		// The best span scores the relevance, or less after the length
		// penalty: its limit is at least that of the span's score.
		res := ask(q, 2000)
		if len(res.Spans) > 0 && res.TotalTokens > 1500 {
			t.Errorf("%q: %d tokens at relevance %.3f; want its best spans only", q, res.TotalTokens, res.Spans[0].Score)
		}
	}

	held, full, asked := 0, 0, 0
	for _, ev := range evs {
		in := len(ev.Evidence) > 0
		for id := range ev.Evidence {
			in = in && doi[id] != ""
		}
		if !in {
			continue
		}
		if asked == 20 {
			break
		}
		asked++
		if ask(ev.Claim, 2000).TotalTokens >= 1900 {
			full++
		}
	found:
		for _, s := range ask(ev.Claim, 500).Spans {
			for id := range ev.Evidence {
				if s.Provenance.DOI == doi[id] {
					held++
					break found
				}
			}
		}
	}
	t.Logf("of %d claims, %d got nearly 2,000 tokens of 2,000, %d a span of their evidence at 500", asked, full, held)
	if asked < 20 || full < 18 || held < 18 {
		t.Errorf("of %d claims, %d got nearly 2,000 tokens of 2,000 and %d a span of their evidence at 500; want 18 of 20 each", asked, full, held)
	}
}
