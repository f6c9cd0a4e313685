package papermem_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// TestRecallPapersRareWord checks that a paper is listed for a word that it
// alone holds, whatever the relevance cut says of a one-word query: 200
// short papers, each with a made-up word of its own, each found by its
// word (issue 40).
func TestRecallPapersRareWord(t *testing.T) {
	w := mustOpen(t).Workspace("default")
	topics := []string{
		"reduced inflammation in mice after two weeks of treatment",
		"improved recall of word lists in older adults",
		"lowered blood pressure in patients with mild hypertension",
		"increased the yield of wheat grown in dry soil",
		"slowed the growth of tumour cells in culture",
		"shortened the time to recovery after knee surgery",
		"raised the accuracy of translation models on news text",
		"cut the energy use of data centres by a fifth",
	}
	words := make([]string, 200)
	for i := range words {
		words[i] = madeUpWord(i)
		doi := fmt.Sprintf("10.1000/rare.%d", i)
		mustStore(t, w, papermem.PaperInput{DOI: doi, Title: fmt.Sprintf("A trial of %s", topics[i%len(topics)][:20]),
			Text: fmt.Sprintf("Background: few treatments are known to work here, and earlier trials were small. "+
				"Methods: we randomised %d participants to placebo or to the new approach and followed them for a year. "+
				"Results: in this study %s %s, and the effect held in a second cohort. "+
				"Conclusions: the approach deserves a larger trial with longer follow-up.", 40+i, words[i], topics[i%len(topics)])})
	}
	missed := 0
	for i, word := range words {
		ps, err := w.RecallPapers(ctx, papermem.PaperRecallRequest{Query: word})
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) == 0 || ps[0].DOI != fmt.Sprintf("10.1000/rare.%d", i) {
			missed++
			if missed <= 3 {
				t.Errorf("RecallPapers(%q) = %d papers, want 10.1000/rare.%d first", word, len(ps), i)
			}
		}
	}
	if missed > 0 {
		t.Errorf("%d of %d papers not found by their own word", missed, len(words))
	}
}

// madeUpWord returns the i-th of distinct pronounceable words that no
// dictionary holds.
func madeUpWord(i int) string {
	const cons, vows = "bdfgklmnprstvz", "aeiou"
	var b strings.Builder
	for j, n := 0, i+7919; j < 4; j++ {
		b.WriteByte(cons[n%len(cons)])
		n /= len(cons)
		b.WriteByte(vows[n%len(vows)])
		n = n/len(vows) + j*3
	}
	b.WriteString("x")
	return b.String()
}

// TestRecallStopCoversTheQuestion checks that the stop does not end an
// answer before a span holding a rare word of the question that the spans
// taken lack: documents that share the question's common words rank first
// (a document's context is its best node's score over the best
// document's), and the paper holding its rare word comes after them.
func TestRecallStopCoversTheQuestion(t *testing.T) {
	w := mustOpen(t).Workspace("default")
	for i := range 10 {
		text := fmt.Sprintf("# Results\nIn cohort %d, the training protocol reduced dropout by %d%%. Adherence rose in the second year.\n", i, 10+i)
		if _, err := w.IngestFile(ctx, fmt.Sprintf("notes-%d.md", i), strings.NewReader(text), papermem.IngestOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	mustStore(t, w, papermem.PaperInput{DOI: "10.1000/marker", Title: "On exercise and adherence",
		Text: "# Abstract\nWe show that exercise improves adherence in older adults.\n\n# Results\nThe zq7x protocol reduced dropout by 12%."})
	res, err := w.Recall(ctx, papermem.RecallRequest{Question: "Which protocol is zq7x?", Label: papermem.LabelAny, BudgetTokens: 300})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Spans, func(s papermem.Span) bool { return strings.Contains(s.Text, "zq7x") }) {
		for _, s := range res.Spans {
			t.Logf("%.3f %s %q", s.Score, s.Provenance.Kind, s.Text)
		}
		t.Errorf("the span holding zq7x was left out of the answer")
	}
}

// TestRecallReadsOnePaperDeep checks that an answer drawing on one paper
// alone (its workspace's only paper, or a recall scoped to its DOI) is
// the answer of a fixed budget of max(min(budget, SourceDepth),
// SourceShare of the budget) tokens, though the paper's other sentences
// score far under the best (inside one paper the scores say little of
// how deep the evidence lies), and no more.
func TestRecallReadsOnePaperDeep(t *testing.T) {
	topics := []string{"glacier melt rates in the Andes", "tokenizer vocabulary size", "hospital staffing levels",
		"solar panel efficiency", "coral reef bleaching", "railway timetable delays", "wheat yield under drought",
		"battery cycle life", "bird migration routes", "protein folding stability"}
	var b strings.Builder
	b.WriteString("# Method\nWe trained the dependency parser on the Penn Treebank corpus with a biaffine scorer.\n\n# Discussion\n")
	for i := range 80 {
		fmt.Fprintf(&b, "Section %d also reports %s, measured over %d sites in %d. ", i, topics[i%len(topics)], 3+i, 1990+i%30)
	}
	m := mustOpen(t)
	alone := m.Workspace("alone")
	paper := papermem.PaperInput{DOI: "10.1000/parser", Title: "A parser study", Text: b.String()}
	mustStore(t, alone, paper)
	shared := m.Workspace("shared")
	mustStore(t, shared, paper)
	mustStore(t, shared, papermem.PaperInput{DOI: "10.1000/other", Title: "Treebanks for parsing",
		Text: "The Penn Treebank corpus remains the standard for training a dependency parser."})
	const budget = 2000
	depth := max(min(budget, papermem.SourceDepth), int(papermem.SourceShare*budget))
	for _, c := range []struct {
		name string
		w    *papermem.Workspace
		dois []string
	}{{"Alone", alone, nil}, {"ScopedToDOI", shared, []string{"10.1000/parser"}}} {
		t.Run(c.name, func(t *testing.T) {
			req := papermem.RecallRequest{Question: "Which corpus was the dependency parser trained on?", BudgetTokens: budget, DOIs: c.dois}
			res, err := c.w.Recall(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			req.Fill = true
			full, err := c.w.Recall(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			req.BudgetTokens = depth
			fixed, err := c.w.Recall(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Spans) == 0 || !strings.Contains(res.Spans[0].Text, "Penn Treebank") {
				t.Fatalf("first span: %+v; want the Penn Treebank sentence", res.Spans)
			}
			if full.TotalTokens <= depth || fixed.TotalTokens < depth*9/10 {
				t.Fatalf("the whole budget returns %d tokens and %d returns %d: the paper is too short for the test", full.TotalTokens, depth, fixed.TotalTokens)
			}
			ids := func(r *papermem.RecallResult) []int64 {
				var out []int64
				for _, s := range r.Spans {
					out = append(out, s.NodeID)
				}
				return out
			}
			if diff := cmp.Diff(ids(fixed), ids(res)); diff != "" || res.TotalTokens != fixed.TotalTokens {
				t.Errorf("the answer holds %d tokens in %d spans, a fixed budget of %d holds %d; spans (-fixed +answer):\n%s",
					res.TotalTokens, len(res.Spans), depth, fixed.TotalTokens, diff)
			}
		})
	}
}
