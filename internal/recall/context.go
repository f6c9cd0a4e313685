package recall

import (
	"cmp"
	"context"
	"math"
	"sync"

	"github.com/papermem/papermem/internal/nodeindex"
	"github.com/papermem/papermem/internal/store"
)

// Paper context. A sentence or passage answers a question better when its
// source as a whole is about the question: a workspace recall also ranks
// the papers (their title and abstract nodes) and adds contextWeight times
// its source's relative score to every node's score, and it considers
// every node of the best contextPapers papers, so that a paper's evidence
// sentences that share few words with the question come with the one that
// shares many. A paper's relative score is its title and abstract node's
// score over the best paper's; a document's or analysis's (they have no
// such node) is its best node's over the best of its kind, so that a
// document that answers the question keeps its place among papers; and an
// analysis that answers the question says the same of the paper it
// analyses. Chosen on the odd half of SciFact's evidence claims
// (devtools/cmd/scifact; docs/measurements.md).
const (
	contextWeight = 4
	contextPapers = 10
)

// source is where nodes come from: an owner kind and the owner's id.
type source struct {
	kind  string
	owner int64
}

// rankInContext is rank with paper context (see contextWeight) over part p
// of the node index, brought up to date for both of its searches. A query
// kept to some papers (q.owners) ranks, and takes every node of, only
// those.
//
// It also returns the context every candidate got (common), which says
// nothing of any: all come from one paper, as in a recall scoped to it.
// The relevance scale leaves it out (pack), so that scores spread as their
// differences do.
func (e *Engine) rankInContext(ctx context.Context, p *nodeindex.Part, q query, question string, keywords []string) (hs []ranked, common float64, err error) {
	if q.label == LabelPaper || q.kind != "" && q.kind != KindPaper || q.user != "" {
		hs, err = e.rankIn(ctx, p, q, question, keywords)
		return hs, 0, err
	}
	// Papers are ranked by BM25 alone (vectors-only measurement aside): on
	// SciFact's evidence that is as good as hybrid and spares a second
	// vector scan. Documents and analyses have no paper to rank. The papers
	// are ranked while the nodes are.
	var papers []ranked
	var paperErr error
	var wg sync.WaitGroup
	if q.label == "" || q.label == LabelClaim || q.label == LabelPassage {
		pr := Lexical
		if q.retrieval == Vector {
			pr = Vector
		}
		pq := query{org: q.org, label: LabelPaper, kind: q.kind, owners: q.owners, domain: q.domain, retrieval: pr}
		wg.Go(func() { papers, paperErr = e.rankIn(ctx, p, pq, question, keywords) })
	}
	hs, err = e.rankIn(ctx, p, q, question, keywords)
	wg.Wait()
	if err = cmp.Or(err, paperErr); err != nil {
		return nil, 0, err
	}
	relative, analyses := sourceScores(hs, papers)
	analysed, err := e.analysedPapers(ctx, q.org, analyses)
	if err != nil {
		return nil, 0, err
	}

	// Every node of the best papers, and of the papers that the best
	// analyses are of, is a candidate.
	byID := make(map[int64]ranked, len(hs))
	for _, h := range hs {
		byID[h.id] = h
	}
	consider := func(ns []nodeindex.Node) {
		for _, n := range ns {
			if _, seen := byID[n.ID]; !seen {
				byID[n.ID] = ranked{id: n.ID, owner: n.Owner, kind: n.Kind, copy: n.Copy}
			}
		}
	}
	iq := q.indexQuery()
	for _, h := range papers[:min(contextPapers, len(papers))] {
		consider(p.Siblings(h.id, iq))
	}
	for paper, c := range analysed {
		k := source{KindPaper, paper}
		if c <= relative[k] {
			continue
		}
		relative[k] = c
		consider(p.Owned(KindPaper, paper, iq))
	}
	out := make([]ranked, 0, len(byID))
	common = math.Inf(1)
	for _, r := range byID {
		c := contextWeight * relative[source{r.kind, r.owner}]
		common = min(common, c)
		r.score += c
		out = append(out, r)
	}
	if len(out) == 0 {
		common = 0
	}
	sortRanked(out)
	return out, common, nil
}

// sourceScores returns the relative score of each source of the ranked
// nodes hs and papers (see contextWeight), and that of each analysis by id.
func sourceScores(hs, papers []ranked) (relative map[source]float64, analyses map[int64]float64) {
	relative = map[source]float64{}
	for _, h := range papers {
		relative[source{KindPaper, h.owner}] = h.score / papers[0].score
	}
	best := map[source]float64{}
	top := map[string]float64{} // the best source's score, by kind
	for _, h := range hs {
		if h.kind != KindPaper {
			k := source{h.kind, h.owner}
			best[k] = max(best[k], h.score)
			top[k.kind] = max(top[k.kind], h.score)
		}
	}
	analyses = map[int64]float64{}
	for k, c := range best {
		relative[k] = c / top[k.kind]
		if k.kind == KindAnalysis {
			analyses[k.owner] = relative[k]
		}
	}
	return relative, analyses
}

// analysedPapers maps the papers that the given analyses (by id) are of to
// the best of those analyses' scores.
func (e *Engine) analysedPapers(ctx context.Context, org string, analyses map[int64]float64) (map[int64]float64, error) {
	if len(analyses) == 0 {
		return nil, nil
	}
	ids := make([]int64, 0, len(analyses))
	for id := range analyses {
		ids = append(ids, id)
	}
	rows, err := store.AnalysedPapers(ctx, e.db, org, ids)
	if err != nil {
		return nil, err
	}
	out := map[int64]float64{}
	for _, r := range rows {
		out[r.Paper] = max(out[r.Paper], analyses[r.Analysis])
	}
	return out, nil
}
