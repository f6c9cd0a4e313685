package recall

import (
	"math/rand/v2"
	"strings"
	"testing"
)

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
	rankSpans(cs, nil, nil, true, false)
	if cs[0].NodeID != 2 || cs[1].Score >= 1 {
		t.Errorf("mixed labels: order %d, %d (scores %.3f, %.3f); want the claim first", cs[0].NodeID, cs[1].NodeID, cs[0].Score, cs[1].Score)
	}
	cs = spans()
	rankSpans(cs, nil, nil, false, false)
	if cs[0].NodeID != 1 || cs[0].Score != 1 {
		t.Errorf("one label: order %d, %d; want scores unchanged", cs[0].NodeID, cs[1].NodeID)
	}
}

// TestRankSpansClaimLength checks that of two claims that score nearly
// alike the shorter ranks first, whatever the recall's labels, and that a
// claim of a sentence's length keeps its score.
func TestRankSpansClaimLength(t *testing.T) {
	for _, mixed := range []bool{false, true} {
		cs := []*candidate{
			{Span: Span{NodeID: 1, Label: LabelClaim, Score: 1, Tokens: 60}},
			{Span: Span{NodeID: 2, Label: LabelClaim, Score: 0.999, Tokens: sentenceTokens}},
		}
		rankSpans(cs, nil, nil, mixed, false)
		if cs[0].NodeID != 2 || cs[0].Score != 0.999 || cs[1].Score >= 0.999 {
			t.Errorf("mixed %v: order %d, %d (scores %.4f, %.4f); want the shorter claim first, its score unchanged",
				mixed, cs[0].NodeID, cs[1].NodeID, cs[0].Score, cs[1].Score)
		}
	}
}

// nearDuplicate is the plain definition repeats implements: two normalised
// texts share at least 90% of their distinct words.
func nearDuplicate(a, b string) bool {
	wa, wb := strings.Fields(a), strings.Fields(b)
	if len(wa) == 0 || len(wb) == 0 {
		return false
	}
	set := make(map[string]bool, len(wa))
	for _, w := range wa {
		set[w] = true
	}
	inter := 0
	seen := map[string]bool{}
	for _, w := range wb {
		if set[w] && !seen[w] {
			inter++
		}
		seen[w] = true
	}
	return inter*10 >= 9*(len(set)+len(seen)-inter)
}

// TestSketchNeverHidesDuplicates checks that repeats holds for every pair
// nearDuplicate accepts: the sketch only saves work.
func TestSketchNeverHidesDuplicates(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the cat sat on a mat with my dog and we ran to park then home again soon")
	text := func() []string {
		out := make([]string, 1+rng.IntN(25))
		for i := range out {
			out[i] = words[rng.IntN(len(words))]
		}
		return out
	}
	dups := 0
	for range 20000 {
		a := text()
		b := append([]string(nil), a...)
		for range rng.IntN(3) { // small edits keep many pairs near-duplicate
			b[rng.IntN(len(b))] = words[rng.IntN(len(words))]
		}
		if rng.IntN(4) == 0 {
			b = text()
		}
		sa, sb := sketch(strings.Join(a, " "), ""), sketch(strings.Join(b, " "), "")
		if nearDuplicate(sa.norm, sb.norm) {
			dups++
			if !sa.repeats(sb) || !sb.repeats(sa) {
				t.Fatalf("nearDuplicate(%q, %q) but the sketches rule it out", sa.norm, sb.norm)
			}
		}
	}
	if dups < 1000 {
		t.Fatalf("only %d near-duplicate pairs generated", dups)
	}
}
