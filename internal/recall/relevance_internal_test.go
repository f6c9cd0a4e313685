package recall

import (
	"fmt"
	"math"
	"testing"

	"github.com/papermem/papermem/internal/ftsterm"
)

func TestPoissonAbove(t *testing.T) {
	for _, c := range []struct{ k, m, want float64 }{
		{0, 0, 0},
		{0, 2, 1 - math.Exp(-2)},
		{2, 2, 1 - 5*math.Exp(-2)},
		{40, 2, 0},
		{1000, 1000, 0.4916}, // the normal law beyond a mean of 500
		{1100, 1000, 0.0009},
	} {
		if got := poissonAbove(c.k, c.m); math.Abs(got-c.want) > 0.005 {
			t.Errorf("P(X > %v), mean %v = %.4f; want %.4f", c.k, c.m, got, c.want)
		}
	}
}

// TestAbsentWeight checks what a word memory holds too seldom adds to a
// question's weight: nearly absentFactor times its own when a large
// memory lacks it, next to nothing when a small one does or when memory
// holds it often.
func TestAbsentWeight(t *testing.T) {
	words := questionWords("What did Caroline paint?")
	w := newRelevance("What did Caroline paint?", nil, "").weight[ftsterm.Term("caroline")]
	for _, c := range []struct {
		name     string
		n        int
		df       map[string]int
		min, max float64 // of the weight added, in caroline's weights
	}{
		{"LargeMemoryLacksName", 60000, map[string]int{"paint": 40}, 0.8 * absentFactor, absentFactor},
		{"LargeMemoryHoldsName", 60000, map[string]int{"paint": 40, "carolin": 400}, 0, 0.01},
		{"SmallMemoryLacksName", 200, map[string]int{"paint": 1}, 0, 0.05 * absentFactor},
	} {
		t.Run(c.name, func(t *testing.T) {
			df := func(word string) int { return c.df[ftsterm.Term(word)] }
			got := absentWeight(words, c.n, df) / w
			if got < c.min || got > c.max {
				t.Errorf("added %.3f times caroline's weight; want %v to %v", got, c.min, c.max)
			}
		})
	}
}

// TestLowRelevanceLimit checks that a recall of low relevance returns
// its best spans up to the limit of that relevance, not its budget, while
// a budget under LimitAtMin is not cut and a question memory answers well
// fills any budget.
func TestLowRelevanceLimit(t *testing.T) {
	cands := func() []*memCand {
		texts := []string{
			"Ada: I took the dog to the beach on Sunday, he loved the waves.",
			"Ada: The shelter called about a puppy we could foster.",
			"Bob: My sister bakes sourdough every weekend.",
			"Ada: We saw an old lighthouse on the drive home.",
			"Ada: We hiked up the hill behind the lake yesterday.",
		}
		for i := range 60 {
			texts = append(texts, fmt.Sprintf("Bob: item%d of list%d, box%d and shelf%d", i, i, i, i))
		}
		var cs []*memCand
		for i, text := range texts {
			c := &memCand{}
			c.NodeID, c.Text, c.Tokens, c.Score = int64(i+1), text, 40, 1-float64(i)/1000
			cs = append(cs, c)
		}
		return cs
	}
	low := newRelevance("Does sourdough fermentation slow down in winter?", nil, "")
	var texts [][]string
	for _, c := range cands()[:coverTop] {
		texts = append(texts, []string{c.Text, ""})
	}
	_, limit, ok := low.scale(1, texts)
	if !ok || limit <= LimitAtMin || limit >= 2000 {
		t.Fatalf("relevance's limit %d, ok %v; the test needs a question over MinScore limited to between %d and 2,000 tokens", limit, ok, LimitAtMin)
	}
	if got := packMemories(cands(), Budget{Tokens: 2000, Fill: true}, low).TotalTokens; got > limit || got <= limit-40 {
		t.Errorf("low relevance at 2,000 tokens: %d tokens; want the spans that fit %d", got, limit)
	}
	if got := packMemories(cands(), Budget{Tokens: LimitAtMin, Fill: true}, low).TotalTokens; got != LimitAtMin/40*40 {
		t.Errorf("low relevance at %d tokens: %d; want the budget's spans", LimitAtMin, got)
	}
	high := newRelevance("Does Bob's sister bake sourdough every weekend?", nil, "")
	if got := packMemories(cands(), Budget{Tokens: 2000, Fill: true}, high).TotalTokens; got != 2000 {
		t.Errorf("high relevance at 2,000 tokens: %d tokens; want 2,000", got)
	}
}
