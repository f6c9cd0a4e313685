package recall

import (
	"cmp"
	"context"
	"slices"

	"github.com/papermem/papermem/internal/nodeindex"
)

// Hybrid fusion. The vector query is moved toward the mean vector of the
// best rocchioNodes full-text hits (Rocchio pseudo-relevance feedback, with
// weight rocchioWeight against the question's own vector), so the vector
// search finds what resembles the best lexical evidence without sharing
// its words; vectorWeight is its share of the fused score. Measured on
// SciFact with devtools/cmd/scifact (docs/measurements.md): the blend
// beats either search alone.
const (
	rocchioNodes  = 10
	rocchioWeight = 2
	vectorWeight  = 0.25
)

// ranked is a node found by the searches, with its fused score, the id
// and kind of the paper, document, analysis or memory it belongs to, and
// its nodeindex.Node.Copy.
type ranked struct {
	id, owner int64
	kind      string
	score     float64
	copy      uint64
}

// rank runs the full-text and vector searches and fuses their scores, best
// first: each search's scores are divided by its best score, and the fused
// score is the weighted sum (a node one search missed gets 0 from it).
func (e *Engine) rank(ctx context.Context, q query, question string, keywords []string) ([]ranked, error) {
	p, err := e.index.Part(ctx, q.org)
	if err != nil {
		return nil, err
	}
	return e.rankIn(ctx, p, q, question, keywords)
}

// rankIn is rank over part p of the node index, already brought up to
// date, for callers that search it more than once.
func (e *Engine) rankIn(ctx context.Context, p *nodeindex.Part, q query, question string, keywords []string) ([]ranked, error) {
	if q.limit == 0 {
		q.limit = candidateLimit
	}
	var err error
	var lex, vec []nodeindex.Hit
	text := searchText(question, keywords)
	if q.retrieval != Vector {
		lex = p.Lexical(q.indexQuery(), text)
	}
	if q.retrieval != Lexical {
		if vec, err = e.vector(ctx, p, q, text, lex); err != nil {
			return nil, err
		}
	}
	wv := vectorWeight
	switch q.retrieval {
	case Lexical:
		wv = 0
	case Vector:
		wv = 1
	}
	fused := make(map[int64]ranked, len(lex)+len(vec))
	for _, s := range []struct {
		hs     []nodeindex.Hit
		weight float64
	}{{lex, 1 - wv}, {vec, wv}} {
		for _, h := range s.hs {
			r := fused[h.ID]
			r.id, r.owner, r.kind, r.copy = h.ID, h.Owner, h.Kind, h.Copy
			r.score += s.weight * h.Score / s.hs[0].Score
			fused[h.ID] = r
		}
	}
	out := make([]ranked, 0, len(fused))
	for _, r := range fused {
		out = append(out, r)
	}
	sortRanked(out)
	return out, nil
}

// sortRanked orders hs best first, then by id.
func sortRanked(hs []ranked) { slices.SortFunc(hs, cmpRanked) }

// cmpRanked orders a before b when it scores higher, or as high with a
// lower id.
func cmpRanked(a, b ranked) int {
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
}

// vector returns nodes of part p ranked by cosine similarity to text, best
// first. When lexical hits are given, the query vector moves toward the
// mean of the best of them (Rocchio pseudo-relevance feedback).
func (e *Engine) vector(ctx context.Context, p *nodeindex.Part, q query, text string, lex []nodeindex.Hit) ([]nodeindex.Hit, error) {
	qv, err := e.embedQuery(ctx, p, q.user, text)
	if err != nil {
		return nil, err
	}
	if len(lex) > 0 {
		fb, err := p.Mean(lex[:min(rocchioNodes, len(lex))])
		if err != nil {
			return nil, err
		}
		for i := range qv {
			qv[i] += rocchioWeight * fb[i]
		}
		nodeindex.Normalize(qv)
	}
	return p.Nearest(q.indexQuery(), qv)
}

// embedQuery embeds a question. With a WeightedEmbedder each word counts by
// its inverse document frequency in the collection of user ("" for the
// shared nodes) of part p, as BM25 weighs it, so that rare words lead the
// vector search.
func (e *Engine) embedQuery(ctx context.Context, p *nodeindex.Part, user, text string) ([]float32, error) {
	if e.weighted == nil {
		vs, err := e.embed(ctx, []string{text})
		if err != nil {
			return nil, err
		}
		return vs[0], nil
	}
	var v []float32
	err := p.WithIDF(user, func(idf func(string) float64) (err error) {
		v, err = e.weighted.EmbedWeighted(ctx, text, idf)
		return err
	})
	if err != nil {
		return nil, &EmbedderError{Err: err}
	}
	nodeindex.Normalize(v)
	return v, nil
}
