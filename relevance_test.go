package papermem_test

import (
	"testing"

	"github.com/papermem/papermem"
)

// relevanceMemory holds two papers and one user's conversation.
func relevanceMemory(t *testing.T) *papermem.Workspace {
	t.Helper()
	w := mustOpen(t).Workspace("default")
	mustStore(t, w, papermem.PaperInput{DOI: "10.1000/vitd", Title: "Vitamin D supplementation and fracture risk in older adults",
		Text: "Vitamin D supplementation did not reduce fracture risk in adults over 70 (hazard ratio 0.98). " +
			"Serum calcidiol rose by 40% in the treated group. Falls were as frequent in both arms of the trial."})
	mustStore(t, w, papermem.PaperInput{DOI: "10.1000/statin", Title: "Statins and stroke in patients with atrial fibrillation",
		Text: "Statin therapy lowered the incidence of ischaemic stroke by 25% in patients with atrial fibrillation. " +
			"Myopathy was reported in 2% of treated patients."})
	conversation(t, w, "ada", "s1", "2023-05-07",
		"Caroline: I went to the LGBTQ support group yesterday and it was so powerful.",
		"Melanie: That's amazing! I painted a sunrise over the lake last week.",
		"Caroline: I'm researching adoption agencies, I want to give a child a home.")
	return w
}

// TestRecallNothingRelevant checks that a question memory holds nothing
// about gets no spans and no papers (an empty list, not an error), while a
// question it answers gets spans whose scores lie on the documented scale:
// the best at most 1 and at least MinScore, the others no higher.
func TestRecallNothingRelevant(t *testing.T) {
	w := relevanceMemory(t)
	offTopic := []string{
		"When did Caroline go to the LGBTQ support group?",
		"What did Melanie paint last week?",
	}
	for _, q := range offTopic {
		for _, label := range []string{"", papermem.LabelAny, papermem.LabelPassage} {
			res, err := w.Recall(ctx, papermem.RecallRequest{Question: q, Label: label, BudgetTokens: 2000})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Spans) != 0 || res.TotalTokens != 0 || res.Spans == nil {
				t.Errorf("Recall(%q, label %q) = %+v; want an empty list", q, label, res)
			}
		}
		ps, err := w.RecallPapers(ctx, papermem.PaperRecallRequest{Query: q})
		if err != nil || len(ps) != 0 {
			t.Errorf("RecallPapers(%q) = %+v, %v; want none", q, ps, err)
		}
	}
	for _, q := range []string{"Does vitamin D supplementation reduce fracture risk in older adults?", "Do statins prevent stroke?"} {
		res, err := w.Recall(ctx, papermem.RecallRequest{Question: q, BudgetTokens: 2000})
		if err != nil {
			t.Fatal(err)
		}
		checkScale(t, q, res)
		ps, err := w.RecallPapers(ctx, papermem.PaperRecallRequest{Query: q})
		if err != nil || len(ps) == 0 || ps[0].Score > 1 || ps[0].Score < papermem.MinScore {
			t.Errorf("RecallPapers(%q) = %+v, %v; want papers scored from MinScore to 1", q, ps, err)
		}
	}

	// A user's memories: SciFact-like claims find nothing, their own
	// questions find the turn.
	res, err := w.RecallUser(ctx, "ada", papermem.UserRecallRequest{Question: "Statin therapy lowers the incidence of ischaemic stroke.", BudgetTokens: 2000})
	if err != nil || len(res.Spans) != 0 {
		t.Errorf("RecallUser of a claim = %+v, %v; want an empty list", res, err)
	}
	res, err = w.RecallUser(ctx, "ada", papermem.UserRecallRequest{Question: "What is Caroline researching?", BudgetTokens: 2000})
	if err != nil {
		t.Fatal(err)
	}
	checkScale(t, "What is Caroline researching?", res)
}

// checkScale checks that res has spans scored on the relevance scale, best
// first.
func checkScale(t *testing.T, q string, res *papermem.RecallResult) {
	t.Helper()
	if len(res.Spans) == 0 {
		t.Errorf("%q recalled nothing", q)
		return
	}
	if s := res.Spans[0].Score; s > 1 || s < papermem.MinScore {
		t.Errorf("%q: best score %.3f, want it from MinScore to 1", q, s)
	}
	for i, s := range res.Spans {
		if s.Score < papermem.MinScore || i > 0 && s.Score > res.Spans[i-1].Score {
			t.Errorf("%q: span %d scores %.3f after %.3f (MinScore %.2f)", q, i, s.Score, res.Spans[max(i-1, 0)].Score, papermem.MinScore)
		}
	}
}

// TestRecallScoresMeanTheSame checks that scores compare across questions:
// a question whose words a span holds scores higher than one it answers
// with a single common word.
func TestRecallScoresMeanTheSame(t *testing.T) {
	w := relevanceMemory(t)
	score := func(q string) float64 {
		res, err := w.Recall(ctx, papermem.RecallRequest{Question: q, Label: papermem.LabelAny})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Spans) == 0 {
			return 0
		}
		return res.Spans[0].Score
	}
	full, partial := score("Did statin therapy lower ischaemic stroke in atrial fibrillation?"), score("How frequent were family visits?")
	if full <= partial {
		t.Errorf("a question the memory answers scores %.3f, one it shares a word with %.3f", full, partial)
	}
}
