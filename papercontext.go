package papermem

import (
	"context"
	"fmt"
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
// (cmd/scifact; README).
const (
	contextWeight = 4
	contextPapers = 10
)

// source is where nodes come from: an owner kind (a name id) and the
// owner's id.
type source struct {
	kind  int32
	owner int64
}

// rankInContext is rank with paper context (see contextWeight). It brings
// the node index up to date once for both of its searches.
func (m *Memory) rankInContext(ctx context.Context, q query, question string, keywords []string) ([]ranked, error) {
	p, err := m.index.part(ctx, m.db, q.org)
	if err != nil {
		return nil, err
	}
	hs, err := m.rankIn(ctx, p, q, question, keywords)
	if err != nil || q.label == LabelPaper || q.kind != "" && q.kind != KindPaper || q.user != "" {
		return hs, err
	}
	// Papers are ranked by BM25 alone (vectors-only measurement aside): on
	// SciFact's evidence that is as good as hybrid and spares a second
	// vector scan. Documents and analyses have no paper to rank.
	var papers []ranked
	if q.label == "" || q.label == LabelClaim || q.label == LabelPassage {
		pr := RetrievalLexical
		if q.retrieval == RetrievalVector {
			pr = RetrievalVector
		}
		if papers, err = m.rankIn(ctx, p, query{org: q.org, label: LabelPaper, domain: q.domain, retrieval: pr}, question, keywords); err != nil {
			return nil, err
		}
	}
	p.mu.RLock()
	relative, analyses := p.sourceScores(hs, papers)
	p.mu.RUnlock()
	analysed, err := m.analysedPapers(ctx, q.org, analyses)
	if err != nil {
		return nil, err
	}

	p.mu.RLock()
	defer p.mu.RUnlock()
	f, ok := p.filter(q.searchQuery())
	if !ok {
		return hs, nil
	}
	paperKind := p.kindID(KindPaper)
	score := make(map[int64]float64, len(hs))
	for _, h := range hs {
		score[h.id] = h.score
	}
	consider := func(e int) {
		if _, seen := score[p.ids[e]]; !seen && p.admits(e, &f) {
			score[p.ids[e]] = 0
		}
	}
	for _, h := range papers[:min(contextPapers, len(papers))] {
		if e, ok := p.entry(h.id); ok {
			for _, s := range p.siblings(e) {
				consider(s)
			}
		}
	}
	for paper, c := range analysed {
		k := source{paperKind, paper}
		if c <= relative[k] {
			continue
		}
		relative[k] = c
		for e := range p.ids {
			if p.owners[e] == paper && p.meta[e].kind == paperKind {
				consider(e)
			}
		}
	}
	out := make([]ranked, 0, len(score))
	for id, s := range score {
		if e, ok := p.entry(id); ok {
			s += contextWeight * relative[source{p.meta[e].kind, p.owners[e]}]
			out = append(out, ranked{id, p.owners[e], s})
		}
	}
	sortRanked(out)
	return out, nil
}

// sourceScores returns the relative score of each source of the ranked
// nodes hs and papers (see contextWeight), and that of each analysis by id.
func (p *orgIndex) sourceScores(hs, papers []ranked) (relative map[source]float64, analyses map[int64]float64) {
	relative = map[source]float64{}
	paperKind := p.kindID(KindPaper)
	for _, h := range papers {
		relative[source{paperKind, h.owner}] = h.score / papers[0].score
	}
	best := map[source]float64{}
	top := map[int32]float64{} // the best source's score, by kind
	for _, h := range hs {
		if e, ok := p.entry(h.id); ok && p.meta[e].kind != paperKind {
			k := source{p.meta[e].kind, h.owner}
			best[k] = max(best[k], h.score)
			top[k.kind] = max(top[k.kind], h.score)
		}
	}
	analyses = map[int64]float64{}
	for k, c := range best {
		relative[k] = c / top[k.kind]
		if p.names[k.kind] == KindAnalysis {
			analyses[k.owner] = relative[k]
		}
	}
	return relative, analyses
}

// kindID returns the name id of an owner kind, or anyName when no entry
// has that kind.
func (p *orgIndex) kindID(kind string) int32 {
	if id, ok := p.nameIDs[kind]; ok {
		return id
	}
	return anyName
}

// analysedPapers maps the papers that the given analyses (by id) are of to
// the best of those analyses' scores.
func (m *Memory) analysedPapers(ctx context.Context, org string, analyses map[int64]float64) (map[int64]float64, error) {
	if len(analyses) == 0 {
		return nil, nil
	}
	args := []any{org}
	for id := range analyses {
		args = append(args, id)
	}
	rows, err := m.db.QueryContext(ctx, `SELECT a.id, p.id FROM analyses a JOIN papers p ON p.org_id = a.org_id AND p.doi = a.doi
		WHERE a.org_id = ? AND a.id IN (`+placeholders(len(analyses))+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("analysed papers: %w", err)
	}
	defer rows.Close()
	out := map[int64]float64{}
	for rows.Next() {
		var a, paper int64
		if err := rows.Scan(&a, &paper); err != nil {
			return nil, err
		}
		out[paper] = max(out[paper], analyses[a])
	}
	return out, rows.Err()
}

// siblings returns the entries of the source entry e belongs to: a source's
// nodes are stored together, so they are e's neighbours with its owner and
// kind.
func (p *orgIndex) siblings(e int) []int {
	same := func(i int) bool {
		return p.owners[i] == p.owners[e] && p.meta[i].kind == p.meta[e].kind
	}
	lo, hi := e, e+1
	for lo > 0 && same(lo-1) {
		lo--
	}
	for hi < len(p.ids) && same(hi) {
		hi++
	}
	out := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}
