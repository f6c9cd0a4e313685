package recall

import (
	"fmt"
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

// TestPackerEnds checks where an answer ends: under StopRatio times the
// best span within a source the answer draws on, UserStopRatio within a
// user's memories, SourceStopRatio for another source, and nowhere while
// it draws on one source alone, whose spans are then taken as a fixed
// budget of the depth takes them.
func TestPackerEnds(t *testing.T) {
	span := func(id int64, score float64, tokens int) Span {
		return Span{NodeID: id, Text: fmt.Sprintf("distinct text number %d", id), Score: score, Tokens: tokens}
	}
	p := newPacker(Budget{Tokens: 2000}, nil)
	p.add(span(1, 1, 10), "paper:1")
	p.add(span(2, 0.9, 10), "paper:2")
	for _, c := range []struct {
		owner string
		score float64
		want  bool
	}{
		{"paper:1", StopRatio - 0.01, true}, {"paper:1", StopRatio + 0.01, false},
		{"paper:3", SourceStopRatio - 0.01, true}, {"paper:3", SourceStopRatio + 0.01, false},
	} {
		s := span(9, c.score, 10)
		if got := p.ends(&s, c.owner); got != c.want {
			t.Errorf("two papers drawn on: a span of %s scoring %.2f ends the answer: %v, want %v", c.owner, c.score, got, c.want)
		}
	}

	u := newPacker(Budget{Tokens: 2000}, nil)
	u.add(span(1, 1, 10), "")
	for _, c := range []struct {
		score float64
		want  bool
	}{{UserStopRatio - 0.01, true}, {UserStopRatio + 0.01, false}} {
		s := span(9, c.score, 10)
		if got := u.ends(&s, ""); got != c.want {
			t.Errorf("a user's memory scoring %.2f ends the answer: %v, want %v", c.score, got, c.want)
		}
	}

	one := newPacker(Budget{Tokens: 2000}, nil)
	one.add(span(1, 1, 600), "paper:1")
	if s := span(2, 0.01, 300); one.ends(&s, "paper:1") || one.under(s.Score, "paper:1") || !one.add(s, "paper:1") {
		t.Error("one paper drawn on: a weak span of it that fits the depth is not taken")
	}
	if one.depth() != SourceDepth {
		t.Fatalf("depth at a budget of 2,000: %d, want %d", one.depth(), SourceDepth)
	}
	if s := span(3, 0.9, 200); one.add(s, "paper:1") {
		t.Error("one paper drawn on: a span past the depth was taken")
	}
	if s := span(4, 0.9, 100); !one.add(s, "paper:1") || one.res.TotalTokens != SourceDepth {
		t.Errorf("one paper drawn on: a span that fits the depth's rest was not taken (%d tokens)", one.res.TotalTokens)
	}
	if s := span(5, 0.8, 10); one.ends(&s, "paper:2") || !one.add(s, "paper:2") || !one.add(span(6, 0.7, 200), "paper:1") {
		t.Error("two papers drawn on: the budget, not the depth, bounds the answer")
	}
}

// TestRankSpansQuantity checks that a question asking how many ranks a
// span holding a number before one holding none that scores higher.
func TestRankSpansQuantity(t *testing.T) {
	spans := func() []*candidate {
		return []*candidate{
			{Span: Span{NodeID: 1, Label: LabelClaim, Score: 1, Text: "Heuristic filters remove paragraphs containing many symbols."}},
			{Span: Span{NodeID: 2, Label: LabelClaim, Score: 0.9, Text: "The corpus holds 81.1M papers."}},
		}
	}
	cs := spans()
	rankSpans(cs, nil, nil, false, true)
	if cs[0].NodeID != 2 || cs[0].Score != 0.9 {
		t.Errorf("quantity: order %d, %d (scores %.3f, %.3f); want the span with a number first, its score unchanged", cs[0].NodeID, cs[1].NodeID, cs[0].Score, cs[1].Score)
	}
	cs = spans()
	rankSpans(cs, nil, nil, false, false)
	if cs[0].NodeID != 1 {
		t.Errorf("no quantity asked: order %d, %d; want the scores' order", cs[0].NodeID, cs[1].NodeID)
	}
}
