package recall

import (
	"context"
	"math"
	"strings"
	"sync"

	"github.com/papermem/papermem/internal/ftsterm"
	"github.com/papermem/papermem/internal/nodeindex"
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
//     the best among the coverTop best-ranked texts. A word that the
//     memory holds in fewer nodes than chance would put it in counts more
//     in the question's whole (absentWeight): a name or a thing a large
//     memory never mentions says the memory is about something else, and
//     the one text that holds its other words a chance;
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
// question that memory holds nothing about gets no spans or few. A recall
// of low relevance also returns at most LimitAtMin tokens, twice as many
// for each LimitDoubling of relevance above MinScore, whatever its budget:
// its best spans, not a budget's worth of near misses. MinScore is the
// highest threshold measured that costs in-topic evidence recall at most
// 0.02 on the tuning halves of SciFact and QASPER and on LoCoMo
// conversations 0–2, with the other data sets' questions as the off-topic
// ones (docs/measurements.md). A question that shares no rarer word with
// any text memory holds (a synonym's alone) has no coverage, so it gets
// nothing either.
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

// A word the memory holds too seldom (absentWeight) weighs up to
// absentFactor times more; chance is reckoned as if each node were
// nodeWords words of general English, a word of rarity r (wordvec.Rarity)
// one in e^r·zipfNorm of them, as Zipf's law over GloVe's 400,000 words
// gives (ln 400,000 + Euler's constant). The token limit of a recall of
// low relevance is LimitAtMin at MinScore, doubling for each LimitDoubling
// above it: a budget of 500 tokens is never cut, one of 2,000 only under
// a relevance of 0.35. Chosen on SciFact's odd claims, QASPER's odd papers
// and LoCoMo conversations 0–2, with LoCoMo questions asked of the SciFact
// abstracts as the off-topic ones (docs/measurements.md).
const (
	absentFactor  = 8
	nodeWords     = 5
	zipfNorm      = 13.48
	LimitAtMin    = 500
	LimitDoubling = 0.05
)

// relevance holds a question's words with their weights, and its vector.
type relevance struct {
	weight map[string]float64 // by term, as the node index makes terms
	total  float64            // the words' weights, absentWeight's included
	vec    []float32
}

// offline is the embedder of the relevance scale.
var offline = sync.OnceValue(wordvec.New)

// newRelevance weighs the content words of question, with the nodes of
// user's collection ("" for the shared nodes) in part p as the memory
// (none for a nil p).
func newRelevance(question string, p *nodeindex.Part, user string) relevance {
	r := relevance{weight: map[string]float64{}}
	words := questionWords(question)
	for _, w := range words {
		r.weight[w.term] = w.weight
		r.total += w.weight
	}
	if p != nil && r.total > 0 {
		p.WithDocFreq(user, func(n int, df func(string) int) error {
			r.total += absentWeight(words, n, df)
			return nil
		})
	}
	vs, _ := offline().Embed(context.Background(), []string{question})
	r.vec = vs[0]
	return r
}

// questionWord is a content word of a question, the first of those that
// make its term, with its rarity in general English and its weight.
type questionWord struct {
	word, term     string
	rarity, weight float64
}

// questionWords returns the content words of question, one a term.
func questionWords(question string) []questionWord {
	var out []questionWord
	seen := map[string]bool{}
	for _, w := range terms.Content(question) {
		t := ftsterm.Term(w)
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		rarity := wordvec.Rarity(w)
		out = append(out, questionWord{w, t, rarity, max(rarity-commonRarity, minWeight)})
	}
	return out
}

// absentWeight returns what the words of a question that memory holds too
// seldom add to its weight: each word's weight times absentFactor times
// the chance that, if memory's n nodes used words as general English does,
// more of them would hold the word than the df(word) that do (a Poisson
// count of mean n·nodeWords/(e^rarity·zipfNorm)). The word need not be
// missing from the best text: it counts in the question's whole, not in
// what a text holds. A word missing from a large memory adds nearly
// absentFactor times its weight; from a small one, or a word memory holds
// often, next to nothing.
func absentWeight(words []questionWord, n int, df func(string) int) float64 {
	extra := 0.0
	for _, w := range words {
		mean := float64(n) * nodeWords * math.Exp(-w.rarity) / zipfNorm
		extra += absentFactor * w.weight * poissonAbove(float64(df(w.word)), mean)
	}
	return extra
}

// poissonAbove returns P(X > k) for a Poisson count X of mean m: summed
// up to k, or for a large mean, whose e^-m a float64 cannot hold, by the
// normal law with a continuity correction.
func poissonAbove(k, m float64) float64 {
	if m > 500 {
		return math.Erfc((k+0.5-m)/math.Sqrt(2*m)) / 2
	}
	if k >= m+10*math.Sqrt(m)+10 {
		return 0 // under 1e-6
	}
	term, below := math.Exp(-m), 0.0
	for i := 0.0; i <= k; i++ {
		if i > 0 {
			term *= m / i
		}
		below += term
	}
	return max(1-below, 0)
}

// scale returns the factor that puts rank scores on the relevance scale:
// the relevance of texts, those of the best-ranked spans, best first (each
// a text and the heading it stands under), over best, the best rank score;
// limit, the most tokens the recall may return at that relevance; ok is
// false when the relevance is under MinScore: the recall returns nothing.
func (r relevance) scale(best float64, texts [][]string) (factor float64, limit int, ok bool) {
	if best <= 0 {
		return 0, 0, false
	}
	cover, similar := 0.0, 0.0
	for i, t := range texts[:min(coverTop, len(texts))] {
		cover = max(cover, r.coverage(t...))
		if i < similarTop {
			similar = max(similar, r.similarity(t[0], t[1:]...))
		}
	}
	rel := math.Sqrt(cover * similar)
	limit = math.MaxInt32
	if l := LimitAtMin * math.Exp2((rel-MinScore)/LimitDoubling); l < float64(limit) {
		limit = int(l)
	}
	return rel / best, limit, rel >= MinScore
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

// holdsAll reports whether the texts hold every content word of the
// question (none: false).
func (r relevance) holdsAll(texts ...string) bool {
	found := map[string]bool{}
	for _, text := range texts {
		ftsterm.Terms(text, func(t string) {
			if _, ok := r.weight[t]; ok {
				found[t] = true
			}
		})
	}
	return len(r.weight) > 0 && len(found) == len(r.weight)
}
