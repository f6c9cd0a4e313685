package recall

import (
	"context"
	"strconv"
)

// PackBothWays ranks org's nodes of label ("" for every label) for
// question and returns the spans packed into budget as Recall packs them,
// a batch at a time (batched), and as loading and boosting every ranked
// node first would (allFirst).
func (e *Engine) PackBothWays(ctx context.Context, org, label, question string, keywords, signals []string, budget int) (batched, allFirst *Result, err error) {
	q := query{org: org, label: label, limit: candidateLimit}
	hs, err := e.rank(ctx, q, question, keywords)
	if err != nil {
		return nil, nil, err
	}
	p, err := e.index.Part(ctx, org)
	if err != nil {
		return nil, nil, err
	}
	rel := newRelevance(question, p, "")
	if batched, err = e.pack(ctx, q, hs, 0, keywords, signals, Budget{Tokens: budget, Fill: true}, rel); err != nil {
		return nil, nil, err
	}
	all, err := e.loadCandidates(ctx, q, hs)
	if err != nil {
		return nil, nil, err
	}
	all = firstCopies(hs, all)
	scale, limit, ok := rel.scale(hs[0].score, candidateTexts(all))
	rankSpans(all, keywords, signals, q.label == "", q.quantity)
	want := newPacker(Budget{Tokens: min(budget, limit), Fill: true}, nil)
	if !ok {
		all = nil
	}
	for _, c := range all {
		if c.Score *= scale; c.Score < MinSpanScore {
			break
		}
		want.add(c.Span, c.kind+":"+strconv.FormatInt(c.ownerID, 10))
	}
	return batched, &want.res, nil
}

// firstCopies returns the candidates cs, loaded from hs, less the copies of
// a text (ranked.copy) that rank below one loaded from a sound source.
func firstCopies(hs []ranked, cs []*candidate) []*candidate {
	byID := map[int64]*candidate{}
	for _, c := range cs {
		byID[c.NodeID] = c
	}
	leftOut := map[uint64]bool{} // by copy, for each copy seen
	var out []*candidate
	for _, h := range hs {
		c := byID[h.id]
		skip, seen := leftOut[h.copy]
		if skip {
			continue
		}
		if !seen {
			leftOut[h.copy] = c != nil && !c.Provenance.Retracted
		}
		if c != nil {
			out = append(out, c)
		}
	}
	return out
}

// Source is where a loaded candidate comes from.
type Source struct {
	Kind  string
	Owner int64
	Text  string
}

// RankThenLoad ranks org's nodes of label for question across the whole
// workspace, then loads them as a recall scoped to the papers owners (row
// ids) loads its candidates. It returns the owners of the nodes ranked and
// the sources of those loaded.
func (e *Engine) RankThenLoad(ctx context.Context, org, label, question string, owners []int64) (ranked []int64, loaded []Source, err error) {
	q := query{org: org, label: label}
	hs, err := e.rank(ctx, q, question, nil)
	if err != nil {
		return nil, nil, err
	}
	for _, h := range hs {
		ranked = append(ranked, h.owner)
	}
	q.kind, q.owners = KindPaper, owners
	cs, err := e.loadCandidates(ctx, q, hs)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range cs {
		loaded = append(loaded, Source{c.kind, c.ownerID, c.Text})
	}
	return ranked, loaded, nil
}
