package papermem_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/papermem/papermem"
)

// retrievals are every retrieval mode of a user recall.
var retrievals = []papermem.Retrieval{papermem.RetrievalHybrid, papermem.RetrievalLexical, papermem.RetrievalVector}

// mustRemember stores a memory of user or fails the test.
func mustRemember(tb testing.TB, w *papermem.Workspace, user string, in papermem.NoteInput) *papermem.Remembered {
	tb.Helper()
	r, err := w.Remember(ctx, user, in)
	if err != nil {
		tb.Fatalf("Remember(%q, %q): %v", user, in.Key, err)
	}
	return r
}

// recallKeys returns the keys of the memories user recalls for question
// with retrieval r, best first.
func recallKeys(tb testing.TB, w *papermem.Workspace, user, question string, r papermem.Retrieval) []string {
	tb.Helper()
	res, err := w.RecallUser(ctx, user, papermem.UserRecallRequest{Question: question, Retrieval: r})
	if err != nil {
		tb.Fatalf("RecallUser(%q, %q, %q): %v", user, question, r, err)
	}
	keys := []string{}
	for _, s := range res.Spans {
		keys = append(keys, s.Provenance.Key)
	}
	return keys
}

func TestRemember(t *testing.T) {
	m := mustOpen(t)
	w := m.Workspace("default")
	t.Run("Provenance", func(t *testing.T) {
		const text = "Ada adopted a grey cat called Pixel from the shelter."
		mustRemember(t, w, "ada", papermem.NoteInput{
			Text: text, Key: "cat", Tags: []string{"pets"},
			OccurredAt: "2023-05-07T14:30:00+02:00", Metadata: map[string]any{"session": "s1", "seq": 3, "mood": "happy"},
		})
		res, err := w.RecallUser(ctx, "ada", papermem.UserRecallRequest{Question: "What is the name of Ada's cat?"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Spans) != 1 {
			t.Fatalf("spans = %+v", res.Spans)
		}
		got := res.Spans[0].Provenance
		got.IngestedAt = ""
		want := papermem.Provenance{Kind: "memory", Key: "cat", Tags: []string{"pets"}, CharEnd: len(text),
			OccurredAt: "2023-05-07T12:30:00.000Z", Metadata: map[string]any{"session": "s1", "seq": 3.0, "mood": "happy"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("provenance (-want +got):\n%s", diff)
		}
		if res.Spans[0].Label != papermem.LabelMemory {
			t.Errorf("label = %q", res.Spans[0].Label)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		for name, in := range map[string]papermem.NoteInput{
			"no text":   {Text: "  "},
			"bad time":  {Text: "x", OccurredAt: "last Tuesday"},
			"bad utf8":  {Text: "\xff\xfe"},
			"huge text": {Text: strings.Repeat("a", 64<<10+1)},
			"bad meta":  {Text: "x", Metadata: map[string]any{"f": func() {}}},
		} {
			if _, err := w.Remember(ctx, "ada", in); papermem.ErrorCode(err) != papermem.EINVALID {
				t.Errorf("%s: err = %v, want EINVALID", name, err)
			}
		}
		if _, err := w.Remember(ctx, " ", papermem.NoteInput{Text: "x"}); papermem.ErrorCode(err) != papermem.EINVALID {
			t.Errorf("no user: err = %v, want EINVALID", err)
		}
		for name, req := range map[string]papermem.UserRecallRequest{
			"no question": {},
			"budget":      {Question: "x", BudgetTokens: -5},
			"retrieval":   {Question: "x", Retrieval: "psychic"},
		} {
			if _, err := w.RecallUser(ctx, "ada", req); papermem.ErrorCode(err) != papermem.EINVALID {
				t.Errorf("%s: err = %v, want EINVALID", name, err)
			}
		}
		if _, err := w.RecallUser(ctx, "", papermem.UserRecallRequest{Question: "x"}); papermem.ErrorCode(err) != papermem.EINVALID {
			t.Errorf("recall without user: err = %v, want EINVALID", err)
		}
	})
}

func TestRememberUpdatesByKey(t *testing.T) {
	m := mustOpen(t)
	w := m.Workspace("default")
	first := mustRemember(t, w, "ada", papermem.NoteInput{Text: "Ada's favourite colour is turquoise.", Key: "colour"})
	// Recalled once, so that recall has read (and may keep) the first version.
	if got := recallKeys(t, w, "ada", "Is Ada's favourite colour turquoise?", papermem.RetrievalHybrid); !cmp.Equal(got, []string{"colour"}) {
		t.Fatalf("before the update, recalled %v", got)
	}
	second := mustRemember(t, w, "ada", papermem.NoteInput{Text: "Ada's favourite colour is now vermilion.", Key: "colour",
		OccurredAt: "2024-01-02"})
	if second.Key != "colour" || second.NodeID == first.NodeID {
		t.Fatalf("first %+v, second %+v", first, second)
	}
	for _, r := range retrievals {
		for _, q := range []string{"Is Ada's favourite colour turquoise?", "favourite colour vermilion"} {
			res, err := w.RecallUser(ctx, "ada", papermem.UserRecallRequest{Question: q, Retrieval: r})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Spans) != 1 || res.Spans[0].NodeID != second.NodeID || !strings.Contains(res.Spans[0].Text, "vermilion") ||
				res.Spans[0].Provenance.OccurredAt != "2024-01-02T00:00:00.000Z" {
				t.Errorf("%s %q: spans = %+v", r, q, res.Spans)
			}
		}
	}
	derived := mustRemember(t, w, "ada", papermem.NoteInput{Text: "Ada plays the cello."})
	again := mustRemember(t, w, "ada", papermem.NoteInput{Text: "Ada plays the cello."})
	if derived.Key == "" || derived.Key != again.Key {
		t.Errorf("derived keys %q and %q", derived.Key, again.Key)
	}
}

func TestForget(t *testing.T) {
	m := mustOpen(t)
	w := m.Workspace("default")
	mustRemember(t, w, "ada", papermem.NoteInput{Text: "Ada's locker code is seven four two nine.", Key: "locker",
		Metadata: map[string]any{"session": "s"}})
	mustRemember(t, w, "ada", papermem.NoteInput{Text: "Ada parks the bicycle near the locker room.", Key: "bike",
		Metadata: map[string]any{"session": "s"}})
	for _, r := range retrievals {
		if got := recallKeys(t, w, "ada", "What is Ada's locker code?", r); !slices.Contains(got, "locker") {
			t.Fatalf("%s: before Forget, recalled %v", r, got)
		}
	}
	if err := w.Forget(ctx, "ada", "locker"); err != nil {
		t.Fatal(err)
	}
	for _, r := range retrievals {
		for _, q := range []string{"What is Ada's locker code?", "Ada's locker code is seven four two nine.", "bicycle"} {
			if got := recallKeys(t, w, "ada", q, r); slices.Contains(got, "locker") {
				t.Errorf("%s %q: a forgotten memory was recalled: %v", r, q, got)
			}
		}
	}
	if err := w.Forget(ctx, "ada", "locker"); papermem.ErrorCode(err) != papermem.ENOTFOUND {
		t.Errorf("second Forget: err = %v, want ENOTFOUND", err)
	}
	if err := w.Forget(ctx, "", "bike"); papermem.ErrorCode(err) != papermem.EINVALID {
		t.Errorf("Forget without user: err = %v, want EINVALID", err)
	}
}

func TestUserMemoryIsolation(t *testing.T) {
	m := mustOpen(t)
	home, other := m.Workspace("home"), m.Workspace("other")
	secret := papermem.NoteInput{Text: "Ada's passport number is ZX9931 and she keeps it in the blue drawer.", Key: "passport",
		Metadata: map[string]any{"session": "s"}}
	mustRemember(t, home, "ada", secret)
	mustRemember(t, home, "bob", papermem.NoteInput{Text: "Bob keeps spare keys in the blue drawer.", Key: "keys",
		Metadata: map[string]any{"session": "s"}})
	mustRemember(t, other, "ada", papermem.NoteInput{Text: "Ada in another workspace likes the blue drawer too.", Key: "drawer",
		Metadata: map[string]any{"session": "s"}})
	question := "Where does Ada keep her passport ZX9931 in the blue drawer?"

	for _, r := range retrievals {
		if got := recallKeys(t, home, "ada", question, r); !cmp.Equal(got, []string{"passport"}) {
			t.Errorf("%s: ada in home recalled %v", r, got)
		}
		if got := recallKeys(t, home, "bob", question, r); !cmp.Equal(got, []string{"keys"}) {
			t.Errorf("%s: bob recalled %v", r, got)
		}
		if got := recallKeys(t, other, "ada", question, r); !cmp.Equal(got, []string{"drawer"}) {
			t.Errorf("%s: ada in the other workspace recalled %v", r, got)
		}
		if got := recallKeys(t, home, "eve", question, r); len(got) != 0 {
			t.Errorf("%s: a user without memories recalled %v", r, got)
		}
	}
	res, err := home.Recall(ctx, papermem.RecallRequest{Question: question, Label: papermem.LabelAny})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Spans) != 0 {
		t.Errorf("workspace recall returned per-user memories: %+v", res.Spans)
	}
	if err := home.Forget(ctx, "bob", "passport"); papermem.ErrorCode(err) != papermem.ENOTFOUND {
		t.Errorf("bob forgetting ada's key: err = %v, want ENOTFOUND", err)
	}
	if err := other.Forget(ctx, "ada", "passport"); papermem.ErrorCode(err) != papermem.ENOTFOUND {
		t.Errorf("forgetting from another workspace: err = %v, want ENOTFOUND", err)
	}
	mustRemember(t, home, "bob", papermem.NoteInput{Text: "Bob's own passport memory.", Key: "passport"})
	if got := recallKeys(t, home, "ada", question, papermem.RetrievalHybrid); !cmp.Equal(got, []string{"passport"}) {
		t.Errorf("after bob reused the key, ada recalled %v", got)
	}
	res, err = home.RecallUser(ctx, "ada", papermem.UserRecallRequest{Question: question})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Spans) != 1 || res.Spans[0].Text != secret.Text {
		t.Errorf("ada's memory changed after bob reused its key: %+v", res.Spans)
	}
}

// conversation stores turns as memories of user in one session dated day,
// keyed prefix:index.
func conversation(tb testing.TB, w *papermem.Workspace, user, prefix, day string, turns ...string) {
	tb.Helper()
	for i, t := range turns {
		mustRemember(tb, w, user, papermem.NoteInput{Text: t, Key: fmt.Sprintf("%s:%d", prefix, i), OccurredAt: day,
			Metadata: map[string]any{"session": prefix, "seq": i}})
	}
}

func TestRecallUserNeighbours(t *testing.T) {
	m := mustOpen(t)
	w := m.Workspace("default")
	conversation(t, w, "ada", "s1", "2023-05-08",
		"Ada: Morning! The weather is lovely today.",
		"Bob: How did the marathon in Lisbon go?",
		"Ada: Exhausting but I finished in four hours!",
		"Bob: Amazing, congratulations.",
		"Ada: Thanks, my legs still hurt though.")
	conversation(t, w, "ada", "s2", "2023-06-01",
		"Ada: I started learning the violin.",
		"Bob: Is the violin hard?")

	res, err := w.RecallUser(ctx, "ada", papermem.UserRecallRequest{Question: "How did the Lisbon marathon go?"})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, s := range res.Spans {
		keys = append(keys, s.Provenance.Key)
	}
	if len(keys) == 0 || keys[0] != "s1:1" || !slices.Contains(keys, "s1:0") || !slices.Contains(keys, "s1:2") || !slices.Contains(keys, "s1:3") {
		t.Fatalf("recalled %v; want the hit s1:1 first, then its neighbours", keys)
	}
	if i, j := slices.Index(keys, "s1:2"), slices.Index(keys, "s1:3"); j >= 0 && j < i {
		t.Errorf("a farther neighbour ranks above a nearer one: %v", keys)
	}
	// The other session's memories may come by vector similarity, never as
	// neighbours: they rank below the hit's whole window.
	last := max(slices.Index(keys, "s1:0"), slices.Index(keys, "s1:2"), slices.Index(keys, "s1:3"))
	for i, k := range keys {
		if strings.HasPrefix(k, "s2:") && i < last {
			t.Errorf("a memory of another session ranks among the hit's neighbours: %v", keys)
		}
	}

	// A budget that only fits the hit returns the hit alone.
	hit := res.Spans[0]
	small, err := w.RecallUser(ctx, "ada", papermem.UserRecallRequest{Question: "How did the Lisbon marathon go?", BudgetTokens: hit.Tokens})
	if err != nil {
		t.Fatal(err)
	}
	if len(small.Spans) != 1 || small.Spans[0].NodeID != hit.NodeID || small.TotalTokens != hit.Tokens {
		t.Errorf("budget %d: %+v", hit.Tokens, small)
	}
}

func TestRecallUserConversationRanking(t *testing.T) {
	m := mustOpen(t)
	w := m.Workspace("default")
	filler := []string{
		"Bob: I really think the weather is nice.",
		"Ada: I think so too, I think about it often.",
		"Bob: What do you think about lunch?",
		"Ada: I think pasta sounds good.",
	}
	conversation(t, w, "ada", "s1", "2023-05-08", filler...)
	conversation(t, w, "ada", "s2", "2023-06-10",
		"Ada: I think I enjoy painting a lot.",
		"Ada: Zorblat showed me his painting of the harbour.",
		"Bob: I went to the pottery class with a friend.",
		"Bob: I went to the pottery class last Friday evening.",
	)
	mustRemember(t, w, "ada", papermem.NoteInput{Text: "Bob: Congrats on the promotion, you earned it!", Key: "promotion"})
	t.Run("NamesOverFiller", func(t *testing.T) {
		got := recallKeys(t, w, "ada", "What does Zorblat think about painting?", papermem.RetrievalHybrid)
		if len(got) == 0 || got[0] != "s2:1" {
			t.Errorf("recalled %v; want s2:1 (the name) first", got)
		}
	})
	t.Run("TimeQuestions", func(t *testing.T) {
		got := recallKeys(t, w, "ada", "When did Bob go to the pottery class?", papermem.RetrievalHybrid)
		if len(got) == 0 || got[0] != "s2:3" {
			t.Errorf("recalled %v; want s2:3 (it says when) first", got)
		}
	})
	t.Run("Inflections", func(t *testing.T) {
		// "promoted" and "promotion" share FTS5's stem.
		got := recallKeys(t, w, "ada", "Who was promoted?", papermem.RetrievalHybrid)
		if len(got) == 0 || got[0] != "promotion" {
			t.Errorf("recalled %v; want the promotion first", got)
		}
	})
	t.Run("NamedPeriods", func(t *testing.T) {
		got := recallKeys(t, w, "ada", "What did Ada think in June 2023?", papermem.RetrievalHybrid)
		if len(got) == 0 || got[0] != "s2:0" {
			t.Errorf("recalled %v; want s2:0 (from June 2023) first", got)
		}
	})
	t.Run("RelatedWords", func(t *testing.T) {
		// Only the name in common, which other memories hold too: the
		// offline embedder's word vectors relate karate to taekwondo.
		conversation(t, w, "ada", "s3", "2023-07-01", "Ada: How was your week?", "Bob: I'm off to do some taekwondo!")
		if got := recallKeys(t, w, "ada", "Does Bob do karate?", papermem.RetrievalVector); len(got) == 0 || got[0] != "s3:1" {
			t.Errorf("vector retrieval recalled %v; want the taekwondo first", got)
		}
		if got := recallKeys(t, w, "ada", "Does Bob do karate?", papermem.RetrievalHybrid); !slices.Contains(got, "s3:1") {
			t.Errorf("recalled %v; want the taekwondo among them", got)
		}
		// With no word in common at all, recall finds nothing relevant
		// (internal/recall/relevance.go): the memory's coverage of the question is nil.
		if got := recallKeys(t, w, "ada", "Who does karate?", papermem.RetrievalHybrid); len(got) != 0 {
			t.Errorf("recalled %v for a question that shares no word with any memory; want none", got)
		}
	})
}

func TestRecallUserBudgetInvariant(t *testing.T) {
	m := mustOpen(t)
	w := m.Workspace("default")
	rng := rand.New(rand.NewPCG(7, 11))
	day := time.Date(2023, 1, 1, 9, 0, 0, 0, time.UTC)
	for s := range 12 {
		for i := range 15 {
			text := randomTurn(rng)
			if i%7 == 3 {
				text = "Ada: Thanks!" // repeated text across sessions
			}
			mustRemember(t, w, "ada", papermem.NoteInput{Text: text, Key: fmt.Sprintf("s%d:%d", s, i),
				OccurredAt: day.AddDate(0, 0, 9*s).Format(time.RFC3339), Metadata: map[string]any{"session": s, "seq": i}})
		}
	}
	mustRemember(t, w, "bob", papermem.NoteInput{Text: randomTurn(rng)})
	for range 300 {
		q := strings.Join(randomWords(rng, 1+rng.IntN(8)), " ") + "?"
		if rng.IntN(3) == 0 {
			q = "When did Ada " + q
		}
		budget := 1 + rng.IntN(600)
		r := retrievals[rng.IntN(len(retrievals))]
		res, err := w.RecallUser(ctx, "ada", papermem.UserRecallRequest{Question: q, BudgetTokens: budget, Retrieval: r})
		if err != nil {
			t.Fatal(err)
		}
		sum := 0
		texts := map[string]bool{}
		for i, s := range res.Spans {
			sum += s.Tokens
			if texts[s.Text] {
				t.Errorf("%q (%s, budget %d): text repeated: %q", q, r, budget, s.Text)
			}
			texts[s.Text] = true
			if i > 0 && s.Score > res.Spans[i-1].Score {
				t.Errorf("%q (%s, budget %d): spans not sorted by score at %d", q, r, budget, i)
			}
			if !strings.HasPrefix(s.Provenance.Key, "s") || s.Provenance.Kind != "memory" {
				t.Errorf("%q: span of another user or kind: %+v", q, s.Provenance)
			}
		}
		if sum != res.TotalTokens || sum > budget {
			t.Fatalf("%q (%s, budget %d): total_tokens %d, sum of spans %d", q, r, budget, res.TotalTokens, sum)
		}
	}
}

// vocabulary feeds the random conversations of the property test and the
// benchmark.
var vocabulary = strings.Fields(`Ada Bob Lisbon marathon violin pottery painting garden
dog cat kids school work project deadline concert guitar museum beach mountain camping hiking
book novel recipe soup bread cake birthday party wedding trip flight train hotel family friend
mentor class workshop lecture exam nurse teacher doctor coffee tea rain snow sunny yesterday
tomorrow weekend last week next month ago adoption shelter charity race volunteer festival
dance studio store clothes shoes photo camera sunset lake river park bike car house apartment
loved enjoyed started finished visited planned learned painted cooked adopted ran wrote read`)

func randomWords(rng *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = vocabulary[rng.IntN(len(vocabulary))]
	}
	return out
}

func randomTurn(rng *rand.Rand) string {
	speaker := []string{"Ada", "Bob"}[rng.IntN(2)]
	return speaker + ": I " + strings.Join(randomWords(rng, 4+rng.IntN(20)), " ") + "."
}

// BenchmarkRecallUser times full recall at a 2,000-token budget for one
// user holding 5,000 conversation memories (250 sessions of 20 turns over
// a Zipf-distributed vocabulary of 5,000 words), and reports the median
// and 95th percentile latency.
func BenchmarkRecallUser(b *testing.B) {
	m := mustOpen(b)
	w := m.Workspace("bench")
	rng := rand.New(rand.NewPCG(3, 5))
	syllables := strings.Fields("ka lo mi re su ta ne vo pi da ru sel man tor bel fin gra ste pol ven")
	lexicon := make([]string, 5000)
	for i := range lexicon {
		var sb strings.Builder
		for range 2 + rng.IntN(3) {
			sb.WriteString(syllables[rng.IntN(len(syllables))])
		}
		lexicon[i] = sb.String()
	}
	zipf := rand.NewZipf(rng, 1.07, 2, uint64(len(lexicon)-1))
	sentence := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = lexicon[zipf.Uint64()]
		}
		return strings.Join(ws, " ")
	}
	day := time.Date(2022, 1, 1, 10, 0, 0, 0, time.UTC)
	for s := range 250 {
		for i := range 20 {
			mustRemember(b, w, "ada", papermem.NoteInput{
				Text:       []string{"Ada", "Bob"}[i%2] + ": " + sentence(8+rng.IntN(30)) + ".",
				Key:        fmt.Sprintf("s%d:%d", s, i),
				OccurredAt: day.AddDate(0, 0, 3*s).Format(time.RFC3339),
				Metadata:   map[string]any{"session": s, "seq": i},
			})
		}
	}
	questions := make([]string, 200)
	for i := range questions {
		questions[i] = []string{"When did Ada ", "What does Bob think about ", "Why did Ada "}[i%3] + sentence(2+rng.IntN(4)) + "?"
	}
	b.Run("5000", func(b *testing.B) {
		var lat []time.Duration
		for i := 0; b.Loop(); i++ {
			t0 := time.Now()
			if _, err := w.RecallUser(ctx, "ada", papermem.UserRecallRequest{Question: questions[i%len(questions)], BudgetTokens: 2000}); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
		}
		slices.Sort(lat)
		ms := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))]) / 1e6 }
		b.ReportMetric(ms(0.50), "p50-ms")
		b.ReportMetric(ms(0.95), "p95-ms")
	})
}

// FuzzRecallQuestion asks both recalls arbitrary questions and keywords
// over a few stored memories and a paper: each answers within its budget or
// refuses with EINVALID, and never panics (the question's words, names,
// time cues and named periods are all parsed from it). Workspace recall is
// also asked scoped to the paper's DOI and the keyword as a DOI: it then
// returns nothing but that paper's spans.
func FuzzRecallQuestion(f *testing.F) {
	m := mustOpen(f)
	w := m.Workspace("default")
	mustStore(f, m, vitaminD)
	for i, text := range []string{"Ada: I adopted a cat called Pixel in May 2023.", "Bo: We went hiking last weekend!", "Ada: My son started taekwondo."} {
		mustRemember(f, w, "ada", papermem.NoteInput{Text: text, OccurredAt: fmt.Sprintf("2023-05-%02d", i+1),
			Metadata: map[string]any{"session": "s1", "seq": i}})
	}
	for _, q := range []string{"When did Ada adopt Pixel?", "What did Ada do in May 2023?", "vitamin D fracture", "", "\u0301", "in 1999 or 20000 or the 90s?"} {
		f.Add(q, "cat", 50)
	}
	f.Add("vitamin D fracture", "doi:10.1000/VitD", 100)
	f.Add("vitamin D fracture", "10.9999/absent", 0)
	f.Fuzz(func(t *testing.T, question, keyword string, budget int) {
		req := papermem.RecallRequest{Question: question, Keywords: []string{keyword}, BudgetTokens: budget, Label: papermem.LabelAny}
		res, err := w.Recall(ctx, req)
		checkRecall(t, "Recall", res, err, budget)
		req.DOIs = []string{vitaminD.DOI, keyword} // keyword: mostly not a DOI, EINVALID
		res, err = w.Recall(ctx, req)
		checkRecall(t, "Recall with dois", res, err, budget)
		for _, s := range spansOf(res) {
			if s.Provenance.DOI != "10.1000/vitd" {
				t.Fatalf("Recall with dois %q: span of %s", req.DOIs, s.Provenance.DOI)
			}
		}
		res, err = w.RecallUser(ctx, "ada", papermem.UserRecallRequest{Question: question, Keywords: []string{keyword}, BudgetTokens: budget})
		checkRecall(t, "RecallUser", res, err, budget)
	})
}

// spansOf returns the spans of res, none for nil.
func spansOf(res *papermem.RecallResult) []papermem.Span {
	if res == nil {
		return nil
	}
	return res.Spans
}

// checkRecall fails t unless a recall with the given budget either refused
// with EINVALID or stayed within it.
func checkRecall(t *testing.T, name string, res *papermem.RecallResult, err error, budget int) {
	t.Helper()
	if err != nil {
		if papermem.ErrorCode(err) != papermem.EINVALID {
			t.Fatalf("%s: %v, want a result or EINVALID", name, err)
		}
		return
	}
	limit := budget
	if budget == 0 {
		limit = papermem.DefaultBudgetTokens
	}
	if res.TotalTokens > limit {
		t.Fatalf("%s: %d tokens for a budget of %d", name, res.TotalTokens, limit)
	}
}
