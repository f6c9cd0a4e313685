package papermem

import (
	"math"

	"github.com/papermem/papermem/internal/ftsterm"
	"github.com/papermem/papermem/internal/nodeindex"
	"github.com/papermem/papermem/internal/terms"
)

// Relevance. Fused and context scores rank the candidates of one recall
// against each other: the best is the best whatever memory holds. What a
// span's score says across questions comes from how much of the question
// the best spans hold: each content word of the question weighs its
// inverse document frequency in the collection searched (a word memory
// lacks weighs most), and a text's coverage is the share of that weight
// its words, with its section's heading, carry. A recall's scale is the
// best coverage among its relevanceTop best-ranked spans; every span's
// score is its rank score over the best one's, times that scale, so the
// best span scores the scale and the others less, in rank order. Spans
// scoring under MinScore are not returned: a question that memory holds
// nothing about gets few spans or none.
const relevanceTop = 10

// MinScore is the lowest score of a span or paper that recall returns
// (see Span.Score).
var MinScore = envFloat("PM_MINSCORE", 0)

// relevance holds a question's words with their weights.
type relevance struct {
	weight map[string]float64 // by term, as the node index makes terms
	total  float64
}

// newRelevance weighs the content words of question by their IDF among
// the nodes of user's collection ("" for the shared nodes) of part p.
func newRelevance(p *nodeindex.Part, user, question string) relevance {
	r := relevance{weight: map[string]float64{}}
	words := terms.Content(question)
	p.WithIDF(user, func(idf func(string) float64) error {
		for _, w := range words {
			t := ftsterm.Term(w)
			if _, seen := r.weight[t]; !seen && t != "" {
				r.weight[t] = math.Pow(idf(w), relPow)
				r.total += r.weight[t]
			}
		}
		return nil
	})
	return r
}

// coverage returns the share of the question's weight that the texts'
// words carry, from 0 to 1.
func (r relevance) coverage(texts ...string) float64 {
	if r.total == 0 {
		return 0
	}
	found := map[string]bool{}
	sum := 0.0
	for _, text := range texts {
		ftsterm.Terms(text, func(t string) {
			if w, ok := r.weight[t]; ok && !found[t] {
				found[t] = true
				sum += w
			}
		})
	}
	return sum / r.total
}

var relPow = envFloat("PM_RELPOW", 1)
