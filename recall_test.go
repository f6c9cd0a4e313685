package papermem_test

import (
	"testing"

	"github.com/papermem/papermem"
)

func TestRecall(t *testing.T) {
	m := mustOpen(t)
	mustStore(t, m, vitaminD)
	mustStore(t, m, papermem.PaperInput{DOI: "10.1000/mt", Title: "Attention is all you need",
		Text: "The Transformer outperforms recurrent models on machine translation, improving BLEU by 2 points."})

	t.Run("Claims", func(t *testing.T) {
		res, err := m.Recall(ctx, papermem.RecallRequest{Question: "Does vitamin D reduce fracture risk?"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Spans) == 0 {
			t.Fatal("no spans")
		}
		top := res.Spans[0]
		if top.Label != papermem.LabelClaim || top.Provenance.DOI != "10.1000/vitd" || top.Provenance.Kind != "paper" {
			t.Errorf("top span = %+v", top)
		}
		if top.Provenance.Title != vitaminD.Title {
			t.Errorf("provenance title = %q", top.Provenance.Title)
		}
		text := []rune(vitaminD.Text)
		p := top.Provenance
		if p.CharEnd > len(text) || string(text[p.CharStart:p.CharEnd]) != top.Text {
			t.Errorf("offsets %d:%d do not cite %q", p.CharStart, p.CharEnd, top.Text)
		}
	})
	t.Run("Any", func(t *testing.T) {
		res, err := m.Recall(ctx, papermem.RecallRequest{Question: "machine translation transformer", Label: "Any"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Spans) == 0 || res.Spans[0].Provenance.DOI != "10.1000/mt" {
			t.Fatalf("spans = %+v", res.Spans)
		}
	})
	t.Run("SectionTypes", func(t *testing.T) {
		res, err := m.Recall(ctx, papermem.RecallRequest{Question: "participants trial countries", Label: "Passage", SectionTypes: []string{"methods"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Spans) != 1 || res.Spans[0].Provenance.SectionType != "methods" {
			t.Fatalf("spans = %+v", res.Spans)
		}
	})
	t.Run("Domain", func(t *testing.T) {
		res, err := m.Recall(ctx, papermem.RecallRequest{Question: "machine translation", Label: "Any", Domain: "medicine"})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range res.Spans {
			if s.Provenance.DOI != "10.1000/vitd" {
				t.Errorf("span from another domain: %+v", s)
			}
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		for name, req := range map[string]papermem.RecallRequest{
			"empty question": {},
			"budget":         {Question: "x", BudgetTokens: -1},
			"huge budget":    {Question: "x", BudgetTokens: papermem.MaxBudgetTokens + 1},
			"label":          {Question: "x", Label: "Nope"},
			"section type":   {Question: "x", SectionTypes: []string{"intro"}},
			"scope signal":   {Question: "x", ScopeSignals: []string{"vibes"}},
		} {
			if _, err := m.Recall(ctx, req); papermem.ErrorCode(err) != papermem.EINVALID {
				t.Errorf("%s: err = %v, want EINVALID", name, err)
			}
		}
	})
}
