package recall

import (
	"context"
	"math"
	"strings"
	"sync"

	"github.com/papermem/papermem/internal/ftsterm"
	"github.com/papermem/papermem/internal/terms"
	"github.com/papermem/papermem/internal/wordvec"
)

// Relevance. Fused and context scores rank the candidates of one recall
// against each other: the best is the best whatever memory holds. What a
// returned score means, the same from one question to the next, comes from
// how well the best-ranked texts match the question, measured apart from
// the ranking:
//   - coverage: the share of the question's words a text (with its
//     section's heading) holds, each word weighing by how rare it is in
//     general English (wordvec.Rarity less commonRarity, so that "what",
//     "study" or "support" weigh little and a name or a term of art much),
//     the best among the coverTop best-ranked texts;
//   - similarity: the cosine of the question and a text (alone or under
//     its heading) in the offline embedder's space (word vectors and
//     spelling), the best among the similarTop best-ranked texts, whatever
//     embedder ranks.
//
// A recall's relevance is the geometric mean of the two, from 0 to 1: both
// must be high. Every span's score is its rank score over the best one's,
// times that relevance, so the best span scores the relevance and the
// others less, in rank order. A recall whose relevance is under MinScore
// returns nothing, and no recall returns a span under MinSpanScore, so a
// question that memory holds nothing about gets no spans or few. MinScore
// is the highest threshold measured that costs in-topic evidence recall
// at most 0.02 on the tuning halves of SciFact and QASPER and on LoCoMo
// conversations 0–2, with the other data sets' questions as the off-topic
// ones (docs/measurements.md). A
// question that shares no rarer word with any text memory holds (a
// synonym's alone) has no coverage, so it gets nothing either.
const (
	coverTop     = 10
	similarTop   = 3
	commonRarity = 6   // the rarity (log of the frequency rank) of a word ranked about 400th
	minWeight    = 0.1 // the weight of a word at least as common
)

// MinScore is the relevance under which a recall returns nothing: the
// lowest score of its best span or paper (see Span.Score). MinSpanScore is
// the lowest score of any span or paper it returns.
const (
	MinScore     = 0.25
	MinSpanScore = 0.05
)

// relevance holds a question's words with their weights, and its vector.
type relevance struct {
	weight map[string]float64 // by term, as the node index makes terms
	total  float64
	vec    []float32
}

// offline is the embedder of the relevance scale.
var offline = sync.OnceValue(wordvec.New)

// newRelevance weighs the content words of question.
func newRelevance(question string) relevance {
	r := relevance{weight: map[string]float64{}}
	for _, w := range terms.Content(question) {
		t := ftsterm.Term(w)
		if _, seen := r.weight[t]; !seen && t != "" {
			r.weight[t] = max(wordvec.Rarity(w)-commonRarity, minWeight)
			r.total += r.weight[t]
		}
	}
	vs, _ := offline().Embed(context.Background(), []string{question})
	r.vec = vs[0]
	return r
}

// scale returns the factor that puts rank scores on the relevance scale:
// the relevance of texts, those of the best-ranked spans, best first (each
// a text and the heading it stands under), over best, the best rank score;
// ok is false when that relevance is under MinScore: the recall returns
// nothing.
func (r relevance) scale(best float64, texts [][]string) (factor float64, ok bool) {
	if best <= 0 {
		return 0, false
	}
	cover, similar := 0.0, 0.0
	for i, t := range texts[:min(coverTop, len(texts))] {
		cover = max(cover, r.coverage(t...))
		if i < similarTop {
			similar = max(similar, r.similarity(t[0], t[1:]...))
		}
	}
	rel := math.Sqrt(cover * similar)
	return rel / best, rel >= MinScore
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

// similarity returns the cosine of the question and a text, at least 0:
// the better of the text alone and the text under its headings.
func (r relevance) similarity(text string, headings ...string) float64 {
	texts := []string{text}
	if h := strings.TrimSpace(strings.Join(headings, " ")); h != "" {
		texts = append(texts, h+"\n"+text)
	}
	vs, _ := offline().Embed(context.Background(), texts)
	best := 0.0
	for _, v := range vs {
		c := 0.0
		for i, x := range v {
			c += float64(x * r.vec[i])
		}
		best = max(best, c)
	}
	return best
}
