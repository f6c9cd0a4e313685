package papermem_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/recall"
	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testutil"
	"github.com/papermem/papermem/internal/tokens"
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

// TestRecallBudgetProperty checks the recall invariants over random
// budgets, questions and filters: total_tokens is the sum of the spans'
// tokens and never exceeds the budget, spans are sorted by score, and no
// text repeats.
func TestRecallBudgetProperty(t *testing.T) {
	m := mustOpen(t)
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields(`vitamin fracture trial placebo serum increase decrease risk cohort mice protein
		expression cancer tumor growth significant model accuracy translation memory sleep neurons signal`)
	sentence := func() string {
		n := 6 + rng.IntN(20)
		ws := make([]string, n)
		for i := range ws {
			ws[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(ws, " ") + fmt.Sprintf(" increased by %d%%.", rng.IntN(90)+1)
	}
	for i := range 30 {
		var text strings.Builder
		for range 3 + rng.IntN(12) {
			text.WriteString(sentence() + " ")
		}
		dup := text.String()
		mustStore(t, m, papermem.PaperInput{DOI: fmt.Sprintf("10.1000/p%d", i), Title: sentence(), Text: dup})
		if i%10 == 0 { // an exact duplicate of the text under another DOI
			mustStore(t, m, papermem.PaperInput{DOI: fmt.Sprintf("10.1000/dup%d", i), Title: "copy", Text: dup})
		}
	}
	labels := []string{"", "Any", "Passage", "Paper"}
	for i := range 200 {
		req := papermem.RecallRequest{
			Question:     sentence(),
			BudgetTokens: 1 + rng.IntN(600),
			Label:        labels[rng.IntN(len(labels))],
		}
		if i%3 == 0 {
			req.ScopeSignals = []string{"evidence"}
			req.Keywords = []string{words[rng.IntN(len(words))]}
		}
		res, err := m.Recall(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		sum := 0
		seen := map[string]bool{}
		for j, s := range res.Spans {
			sum += s.Tokens
			if j > 0 && s.Score > res.Spans[j-1].Score {
				t.Fatalf("req %+v: spans not sorted by score at %d", req, j)
			}
			if seen[s.Text] {
				t.Fatalf("req %+v: text repeated: %q", req, s.Text)
			}
			seen[s.Text] = true
		}
		if sum != res.TotalTokens || sum > req.BudgetTokens {
			t.Fatalf("req %+v: total %d, sum %d, budget %d", req, res.TotalTokens, sum, req.BudgetTokens)
		}
	}
}

func TestRecallDefaultBudgetAndTokens(t *testing.T) {
	m := mustOpen(t)
	mustStore(t, m, vitaminD)
	res, err := m.Recall(ctx, papermem.RecallRequest{Question: "vitamin D", Label: "Any"})
	if err != nil {
		t.Fatal(err)
	}
	if res.TotalTokens > papermem.DefaultBudgetTokens || len(res.Spans) == 0 {
		t.Fatalf("total %d, %d spans", res.TotalTokens, len(res.Spans))
	}
	for _, s := range res.Spans {
		if s.Tokens != tokens.Count(s.Text) {
			t.Errorf("span tokens %d, tokenizer says %d for %q", s.Tokens, tokens.Count(s.Text), s.Text)
		}
	}
	// A budget smaller than every span returns nothing, not an overrun.
	res, err = m.Recall(ctx, papermem.RecallRequest{Question: "vitamin D", Label: "Paper", BudgetTokens: 3})
	if err != nil || res.TotalTokens != 0 || len(res.Spans) != 0 {
		t.Fatalf("tiny budget: %+v, %v", res, err)
	}
}

func TestAnalysisRecall(t *testing.T) {
	m := mustOpen(t)
	a, err := m.StoreAnalysis(ctx, papermem.Analysis{DOI: "https://doi.org/10.1000/VitD", Markdown: "## Verdict\nThe trial convincingly shows that vitamin D does not prevent fractures in older adults.", CoreClaim: "No fracture benefit."})
	if err != nil {
		t.Fatal(err)
	}
	if a.DOI != "10.1000/vitd" || a.ClaimsExtracted == 0 {
		t.Errorf("stored analysis = %+v", a)
	}
	res, err := m.Recall(ctx, papermem.RecallRequest{Question: "does vitamin D prevent fractures", Label: "Analysis"})
	if err != nil || len(res.Spans) == 0 || res.Spans[0].Provenance.Kind != "analysis" || res.Spans[0].Provenance.DOI != "10.1000/vitd" {
		t.Fatalf("analysis recall = %+v, %v", res, err)
	}
	// The core claim is a section of its own, cited in its own field.
	res, err = m.Recall(ctx, papermem.RecallRequest{Question: "no fracture benefit", Label: "Analysis", Retrieval: papermem.RetrievalLexical})
	if err != nil || len(res.Spans) == 0 {
		t.Fatalf("core claim recall = %+v, %v", res, err)
	}
	if p := res.Spans[0].Provenance; p.Section != "Core claim" || p.CharStart != 0 || p.CharEnd != len("No fracture benefit.") {
		t.Errorf("core claim provenance = %+v", p)
	}
	// Upsert replaces: the old text is no longer recalled.
	if _, err := m.StoreAnalysis(ctx, papermem.Analysis{DOI: "10.1000/vitd", Markdown: "Rewritten: the sample was underpowered."}); err != nil {
		t.Fatal(err)
	}
	res, _ = m.Recall(ctx, papermem.RecallRequest{Question: "convincingly prevent fractures", Label: "Analysis", Retrieval: papermem.RetrievalLexical})
	if len(res.Spans) != 0 {
		t.Errorf("replaced analysis still recalled: %+v", res.Spans)
	}
	for name, in := range map[string]papermem.Analysis{"no doi": {Markdown: "x"}, "no markdown": {DOI: "10.1/x"}, "bad doi": {DOI: "nope", Markdown: "x"}} {
		if _, err := m.StoreAnalysis(ctx, in); papermem.ErrorCode(err) != papermem.EINVALID {
			t.Errorf("%s: err = %v, want EINVALID", name, err)
		}
	}
}

func TestStorePaperResolvesIDs(t *testing.T) {
	m := mustOpen(t)
	tests := []struct {
		name string
		in   papermem.PaperInput
		want string
	}{
		{"doi", papermem.PaperInput{DOI: "doi:10.1000/ABC", Title: "T"}, "10.1000/abc"},
		{"from url", papermem.PaperInput{SourceURL: "https://doi.org/10.1000/URL", Title: "T"}, "10.1000/url"},
		{"from text", papermem.PaperInput{Title: "T", Text: "Published as doi:10.1000/text. We show that x improves y."}, "10.1000/text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, rep, err := m.StorePaper(ctx, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if p.DOI != tt.want || rep.DocID != tt.want || rep.Kind != "paper" {
				t.Errorf("doi = %q, report %+v; want %q", p.DOI, rep, tt.want)
			}
		})
	}
	t.Run("local id", func(t *testing.T) {
		p1, _, err := m.StorePaper(ctx, papermem.PaperInput{Title: "A Paper Without DOI"})
		if err != nil {
			t.Fatal(err)
		}
		p2, _, _ := m.StorePaper(ctx, papermem.PaperInput{Title: "a paper  without doi", Year: 2020})
		if !strings.HasPrefix(p1.DOI, "local:") || p1.DOI != p2.DOI || p2.Year != 2020 {
			t.Errorf("local ids %q, %q (year %d)", p1.DOI, p2.DOI, p2.Year)
		}
		if ok, _ := m.PaperExists(ctx, p1.DOI); !ok {
			t.Error("local id not found")
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		for _, in := range []papermem.PaperInput{{}, {DOI: "garbage"}, {Title: "x", Year: -1}} {
			if _, _, err := m.StorePaper(ctx, in); papermem.ErrorCode(err) != papermem.EINVALID {
				t.Errorf("%+v: err = %v, want EINVALID", in, err)
			}
		}
	})
	t.Run("update keeps fields", func(t *testing.T) {
		mustStore(t, m, vitaminD)
		p := mustStore(t, m, papermem.PaperInput{DOI: vitaminD.DOI, OA: true})
		if p.Title != vitaminD.Title || !p.Cached || !p.OA || len(p.Authors) != 2 {
			t.Errorf("updated paper = %+v", p)
		}
		res, err := m.Recall(ctx, papermem.RecallRequest{Question: "vitamin D fracture", Label: "Paper"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Spans) != 1 {
			t.Errorf("re-stored paper has %d Paper nodes recalled, want 1", len(res.Spans))
		}
	})
}

// TestRecallPaperContext checks that a paper that matches the question as a
// whole brings its other claims, even one that shares no word with the
// question, ahead of a claim of another paper that shares a few (or
// instead of it: it may score under MinScore).
func TestRecallPaperContext(t *testing.T) {
	m := mustOpen(t)
	mustStore(t, m, papermem.PaperInput{DOI: "10.1000/a", Title: "Vitamin D and fracture risk in older adults",
		Text: "Vitamin D supplementation lowered fracture risk in older adults by 20%. " +
			"Serum calcidiol rose by 40 percent in the treated group."})
	mustStore(t, m, papermem.PaperInput{DOI: "10.1000/b", Title: "Dietary habits of retired teachers",
		Text: "Older adults in the cohort ate more bread than younger ones. Teachers walked 5 km a day."})
	res, err := m.Recall(ctx, papermem.RecallRequest{Question: "Does vitamin D lower fracture risk in older adults?"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range res.Spans {
		got = append(got, s.Text)
	}
	want := []string{
		"Vitamin D supplementation lowered fracture risk in older adults by 20%.",
		"Serum calcidiol rose by 40 percent in the treated group.",
	}
	if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
		t.Errorf("claims recalled:\n%s\nwant first:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestRecallAnalysisContext checks that an analysis that answers the
// question lifts the claims of the paper it analyses above those of a paper
// that only shares a word with the question.
func TestRecallAnalysisContext(t *testing.T) {
	m := mustOpen(t)
	mustStore(t, m, papermem.PaperInput{DOI: "10.1000/x", Title: "A multi-site trial",
		Text: "Deprivation reduced retention with an effect of d = -0.45."})
	mustStore(t, m, papermem.PaperInput{DOI: "10.1000/y", Title: "Commuting habits",
		Text: "Commuters reported more sleep on weekends than on weekdays."})
	if _, err := m.StoreAnalysis(ctx, papermem.Analysis{DOI: "10.1000/x",
		Markdown: "Sleep loss impairs memory retention: the strongest evidence we have."}); err != nil {
		t.Fatal(err)
	}
	res, err := m.Recall(ctx, papermem.RecallRequest{Question: "Does sleep loss impair memory retention?", Fill: true})
	if err != nil {
		t.Fatal(err)
	}
	rank := map[string]int{}
	for i, s := range res.Spans {
		if _, ok := rank[s.Provenance.DOI+" "+s.Provenance.Kind]; !ok {
			rank[s.Provenance.DOI+" "+s.Provenance.Kind] = i + 1
		}
	}
	x, y := rank["10.1000/x paper"], rank["10.1000/y paper"]
	if x == 0 || y != 0 && y < x {
		t.Errorf("first rank of the analysed paper's claims %d, of the other paper's %d (0: absent): %v", x, y, rank)
	}
}

// TestPaperNodeAbstract checks what a paper's title and abstract node
// holds: its abstract section, else its whole first paragraph (not only
// the first passage of it), else the first passage.
func TestPaperNodeAbstract(t *testing.T) {
	m := mustOpen(t)
	long := strings.Repeat("Serum vitamin D rose steadily in the treated adults over the whole year of follow-up. ", 20)
	for _, tt := range []struct{ doi, text, want string }{
		{"10.1000/s", "Abstract\nVitamin D lowered fracture risk.\n\nMethods\nWe enrolled adults.", "Vitamin D lowered fracture risk."},
		{"10.1000/p", strings.TrimSpace(long) + "\n\nA second paragraph about falls.", strings.TrimSpace(long)},
	} {
		mustStore(t, m, papermem.PaperInput{DOI: tt.doi, Title: "Vitamin D", Text: tt.text})
		res, err := m.Recall(ctx, papermem.RecallRequest{Question: "vitamin D", Label: papermem.LabelPaper})
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(res.Spans, func(s papermem.Span) bool { return s.Provenance.DOI == tt.doi })
		if i < 0 || res.Spans[i].Text != "Vitamin D\n"+tt.want {
			t.Errorf("%s: Paper node %+v, want the title and %q", tt.doi, res.Spans, tt.want)
		}
	}
}

// TestWarm checks that Warm loads the search index of a reopened database,
// after which recall finds what was stored, and that it stops with a
// cancelled context. (internal/nodeindex checks what it loads.)
func TestWarm(t *testing.T) {
	path := testdb.Path(t)
	m, err := papermem.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustStore(t, m, vitaminD)
	m.Close()
	if m, err = papermem.Open(ctx, path, nil); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.Warm(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := m.Recall(ctx, papermem.RecallRequest{Question: "Does vitamin D reduce fracture risk?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Spans) == 0 || res.Spans[0].Provenance.DOI != "10.1000/vitd" {
		t.Fatalf("spans after Warm = %+v", res.Spans)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := m.Warm(cancelled); err == nil {
		t.Fatal("Warm with a cancelled context returned nil")
	}
}

// TestRecallFollowsWrites recalls from several goroutines while another
// stores and deletes papers (run with -race to check the index's
// locking), then checks that the index ends in the database's state: the
// deleted papers are never found, the kept ones are.
func TestRecallFollowsWrites(t *testing.T) {
	m := mustOpen(t)
	paper := func(i int) papermem.PaperInput {
		return papermem.PaperInput{DOI: fmt.Sprintf("10.1/c%d", i), Title: fmt.Sprintf("Trial %d", i),
			Text: fmt.Sprintf("Compound zq%dx reduced relapse by %d%% compared with placebo in the trial.", i, 10+i)}
	}
	done := make(chan struct{})
	errs := make(chan error, 8)
	for g := range 4 {
		go func() {
			for i := 0; ; i++ {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				if _, err := m.Recall(ctx, papermem.RecallRequest{Question: fmt.Sprintf("compound zq%dx relapse", (g+i)%20), Label: papermem.LabelAny}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := range 20 {
		if _, _, err := m.StorePaper(ctx, paper(i)); err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 {
			if err := m.DeletePaper(ctx, paper(i-1).DOI); err != nil {
				t.Fatal(err)
			}
		}
	}
	close(done)
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for i := range 20 {
		for _, mode := range []papermem.Retrieval{papermem.RetrievalLexical, papermem.RetrievalVector} {
			res, err := m.Recall(ctx, papermem.RecallRequest{Question: fmt.Sprintf("compound zq%dx", i), Label: papermem.LabelAny, Retrieval: mode})
			if err != nil {
				t.Fatal(err)
			}
			found := slices.ContainsFunc(res.Spans, func(s papermem.Span) bool { return s.Provenance.DOI == paper(i).DOI })
			if want := i%2 == 1; found != want {
				t.Errorf("%s recall of paper %d: found %v, want %v", mode, i, found, want)
			}
		}
	}
}

// TestRecallAfterEviction bounds the search index to one node
// (Options.IndexMaxBytes): searching a workspace drops the other's part,
// which recall reloads, with the same spans, when it searches it again.
func TestRecallAfterEviction(t *testing.T) {
	m := testutil.Open(t, &papermem.Options{IndexMaxBytes: 1})
	for _, org := range []string{"lab-a", "lab-b"} {
		mustStore(t, m.Workspace(org), papermem.PaperInput{DOI: "10.1/" + org, Title: "Sleep and memory in " + org,
			Text: "Sleep deprivation reduced recall accuracy by 30% in adults. Naps restored it within a week."})
	}
	recall := func(org string) []papermem.Span {
		res, err := m.Workspace(org).Recall(ctx, papermem.RecallRequest{Question: "does sleep deprivation reduce recall", Label: papermem.LabelAny})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Spans) == 0 {
			t.Fatalf("%s: nothing recalled", org)
		}
		return res.Spans
	}
	first := recall("lab-a")
	recall("lab-b")
	if again := recall("lab-a"); !cmp.Equal(first, again) {
		t.Fatalf("lab-a after reloading:\n%s", cmp.Diff(first, again))
	}
}

// TestRecallDOIs checks recall scoped to papers: only those papers' own
// spans, in every label and retrieval mode, even when another paper, a
// document or an analysis answers better; unknown DOIs match nothing and
// malformed ones are EINVALID.
func TestRecallDOIs(t *testing.T) {
	m := mustOpen(t)
	const a, b = "10.1000/a", "10.1000/b"
	mustStore(t, m, papermem.PaperInput{DOI: a, Title: "Vitamin D and fracture risk in older adults",
		Text: "Vitamin D supplementation lowered fracture risk in older adults by 20%. Serum vitamin D rose by 40 percent in the treated group."})
	mustStore(t, m, papermem.PaperInput{DOI: b, Title: "Dietary habits of retired teachers",
		Text: "Older adults in the cohort ate more bread than younger ones. Fracture rates were 3% lower among teachers who walked daily."})
	if _, err := m.IngestFile(ctx, "clinic.md", strings.NewReader("# Notes\nVitamin D lowered fracture risk by 30% in our clinic's older adults."), papermem.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.StoreAnalysis(ctx, papermem.Analysis{DOI: b, Markdown: "Vitamin D lowers fracture risk in older adults, the authors claim without data."}); err != nil {
		t.Fatal(err)
	}
	const question = "Does vitamin D lower fracture risk in older adults?"
	recall := func(t *testing.T, req papermem.RecallRequest) []papermem.Span {
		t.Helper()
		req.Question = question
		res, err := m.Recall(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return res.Spans
	}
	// onlyFrom fails unless every span is a paper node of one of dois.
	onlyFrom := func(t *testing.T, spans []papermem.Span, dois ...string) {
		t.Helper()
		for _, s := range spans {
			if s.Provenance.Kind != papermem.KindPaper || !slices.Contains(dois, s.Provenance.DOI) {
				t.Errorf("span outside %v: %s %s %q", dois, s.Provenance.Kind, s.Provenance.DOI, s.Text)
			}
		}
	}

	t.Run("ExcludesBetterSources", func(t *testing.T) {
		if top := recall(t, papermem.RecallRequest{Label: papermem.LabelAny})[0].Provenance; top.DOI == b {
			t.Fatalf("unscoped, paper b ranks first (%+v): the test needs better sources", top)
		}
		for _, label := range []string{"", papermem.LabelClaim, papermem.LabelPassage, papermem.LabelPaper, papermem.LabelAny} {
			for _, mode := range []papermem.Retrieval{papermem.RetrievalHybrid, papermem.RetrievalLexical, papermem.RetrievalVector} {
				spans := recall(t, papermem.RecallRequest{Label: label, Retrieval: mode, DOIs: []string{b}})
				if len(spans) == 0 {
					t.Errorf("label %q, mode %q: nothing of paper b", label, mode)
				}
				onlyFrom(t, spans, b)
			}
		}
	})
	t.Run("Several", func(t *testing.T) {
		spans := recall(t, papermem.RecallRequest{Label: papermem.LabelAny, DOIs: []string{a, "https://doi.org/10.1000/B", "doi:10.1000/A"}, Fill: true})
		onlyFrom(t, spans, a, b)
		for _, doi := range []string{a, b} {
			if !slices.ContainsFunc(spans, func(s papermem.Span) bool { return s.Provenance.DOI == doi }) {
				t.Errorf("nothing of %s", doi)
			}
		}
	})
	t.Run("UnknownDOI", func(t *testing.T) {
		res, err := m.Recall(ctx, papermem.RecallRequest{Question: question, Label: papermem.LabelAny, DOIs: []string{"10.9999/absent"}})
		if err != nil || res.Spans == nil || len(res.Spans) != 0 || res.TotalTokens != 0 {
			t.Fatalf("unknown DOI: %+v, %v; want no spans", res, err)
		}
		spans := recall(t, papermem.RecallRequest{Label: papermem.LabelAny, DOIs: []string{"10.9999/absent", b}})
		if len(spans) == 0 {
			t.Error("an unknown DOI beside paper b hides paper b")
		}
		onlyFrom(t, spans, b)
	})
	t.Run("OtherKinds", func(t *testing.T) {
		for _, label := range []string{papermem.LabelAnalysis, papermem.LabelDocument} {
			if len(recall(t, papermem.RecallRequest{Label: label})) == 0 {
				t.Fatalf("unscoped label %s recalls nothing: the test needs one", label)
			}
			if spans := recall(t, papermem.RecallRequest{Label: label, DOIs: []string{b}}); len(spans) != 0 {
				t.Errorf("label %s scoped to paper b: %+v", label, spans)
			}
		}
	})
	t.Run("EmptyIsUnscoped", func(t *testing.T) {
		all := recall(t, papermem.RecallRequest{Label: papermem.LabelAny})
		if empty := recall(t, papermem.RecallRequest{Label: papermem.LabelAny, DOIs: []string{}}); !cmp.Equal(all, empty) {
			t.Errorf("empty dois differ from none:\n%s", cmp.Diff(all, empty))
		}
	})
	t.Run("MostDOIs", func(t *testing.T) {
		dois := []string{b}
		for i := len(dois); i < papermem.MaxRecallDOIs; i++ {
			dois = append(dois, fmt.Sprintf("10.9999/n%d", i))
		}
		onlyFrom(t, recall(t, papermem.RecallRequest{Label: papermem.LabelAny, DOIs: dois}), b)
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		tooMany := make([]string, papermem.MaxRecallDOIs+1)
		for i := range tooMany {
			tooMany[i] = b
		}
		for name, dois := range map[string][]string{
			"not a doi": {"not a doi"},
			"empty":     {""},
			"no suffix": {b, "10.1000"},
			"too many":  tooMany,
		} {
			_, err := m.Recall(ctx, papermem.RecallRequest{Question: question, DOIs: dois})
			if papermem.ErrorCode(err) != papermem.EINVALID || !strings.HasPrefix(papermem.ErrorMessage(err), "dois") {
				t.Errorf("%s: err = %v, want EINVALID about dois", name, err)
			}
		}
	})
}

// TestRecallDOIsTenancy checks that a recall scoped to a DOI finds only
// its own workspace's paper: another workspace's paper with the same DOI,
// or a DOI only another workspace holds, gives nothing.
func TestRecallDOIsTenancy(t *testing.T) {
	m := mustOpen(t)
	acme, globex := m.Workspace("acme"), m.Workspace("globex")
	const shared, acmeOnly = "10.1000/shared", "10.1000/acme-only"
	mustStore(t, acme, papermem.PaperInput{DOI: shared, Title: "Vitamin D and fracture risk",
		Text: "Vitamin D supplementation lowered fracture risk in older adults by 20%."})
	mustStore(t, acme, papermem.PaperInput{DOI: acmeOnly, Title: "Vitamin D in the elderly",
		Text: "Vitamin D reduced fractures in older adults by 15%."})
	theirs := papermem.PaperInput{DOI: shared, Title: "Calcium intake of teenagers",
		Text: "Teenagers drank 30% less milk than a decade ago."}
	mustStore(t, globex, theirs)
	for _, label := range []string{papermem.LabelClaim, papermem.LabelPassage, papermem.LabelAny} {
		res, err := globex.Recall(ctx, papermem.RecallRequest{Question: "Does vitamin D lower fracture risk in older adults?",
			Label: label, DOIs: []string{shared}})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range res.Spans {
			if !strings.Contains(theirs.Title+"\n"+theirs.Text, s.Text) {
				t.Errorf("label %s: globex recalled acme's %q", label, s.Text)
			}
		}
		res, err = globex.Recall(ctx, papermem.RecallRequest{Question: "vitamin D fractures", Label: label, DOIs: []string{acmeOnly}})
		if err != nil || len(res.Spans) != 0 {
			t.Errorf("label %s: globex recalled acme's paper: %+v, %v", label, res, err)
		}
	}
	// acme, scoped to the same DOI, finds its own paper.
	res, err := acme.Recall(ctx, papermem.RecallRequest{Question: "vitamin D fracture risk", DOIs: []string{shared}})
	if err != nil || len(res.Spans) == 0 || !strings.Contains(res.Spans[0].Text, "Vitamin D") {
		t.Fatalf("acme's scoped recall = %+v, %v", res, err)
	}
}

// TestRecallDOIsPaperContext checks that a scoped recall puts its papers
// in context among themselves: paper b ranks first of its scope and brings
// its claim that shares no word with the question, though more than ten
// papers outside the scope match the question better.
func TestRecallDOIsPaperContext(t *testing.T) {
	m := mustOpen(t)
	for i := range 12 {
		mustStore(t, m, papermem.PaperInput{DOI: fmt.Sprintf("10.1000/v%d", i), Title: fmt.Sprintf("Vitamin D lowers fracture risk in older adults, trial %d", i),
			Text: fmt.Sprintf("Vitamin D supplementation lowered fracture risk in older adults by %d%%.", 10+i)})
	}
	const b = "10.1000/b"
	mustStore(t, m, papermem.PaperInput{DOI: b, Title: "Fracture risk in retired teachers",
		Text: "Fracture risk fell by 5% among retired teachers. Bread consumption rose by 40 percent over the decade."})
	res, err := m.Recall(ctx, papermem.RecallRequest{Question: "Does vitamin D lower fracture risk in older adults?",
		Retrieval: papermem.RetrievalLexical, DOIs: []string{b}, Fill: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range res.Spans {
		got = append(got, s.Text)
	}
	if !slices.Contains(got, "Bread consumption rose by 40 percent over the decade.") {
		t.Errorf("claims of paper b recalled:\n%s\nwant its claim that shares no word with the question", strings.Join(got, "\n"))
	}
}

// TestRecallNames checks that internal/recall names labels, kinds and
// retrieval modes as the public API does: the root passes its values
// through unchanged.
func TestRecallNames(t *testing.T) {
	for _, p := range [][2]string{
		{papermem.LabelClaim, recall.LabelClaim}, {papermem.LabelPassage, recall.LabelPassage},
		{papermem.LabelPaper, recall.LabelPaper}, {papermem.LabelMemory, recall.LabelMemory},
		{papermem.KindPaper, recall.KindPaper}, {papermem.KindAnalysis, recall.KindAnalysis},
		{papermem.KindMemory, recall.KindMemory},
		{string(papermem.RetrievalHybrid), string(recall.Hybrid)}, {string(papermem.RetrievalLexical), string(recall.Lexical)},
		{string(papermem.RetrievalVector), string(recall.Vector)},
	} {
		if p[0] != p[1] {
			t.Errorf("papermem's %q is recall's %q", p[0], p[1])
		}
	}
}
