package recall

import (
	"cmp"
	"context"
	"slices"

	"github.com/papermem/papermem/internal/store"
)

// PaperRequest asks for workspace Org's papers that best match Query, at
// most Limit of them. The caller has validated it: Query is trimmed and not
// empty, Limit is positive.
type PaperRequest struct {
	Workspace string
	Query     string
	Limit     int
	Fill      bool // list up to Limit papers; false ends the list before a paper under SourceStopRatio times the best sound one
	Retrieval Retrieval
	DOIs      []string // nil or empty for every paper, else only these (normalised)
}

// ScoredPaper is a paper that RecallPapers found, as stored, with its score
// on the relevance scale.
type ScoredPaper struct {
	Paper store.Paper
	Score float64
}

// RecallPapers ranks workspace req.Org's papers for req.Query, best first,
// each once: a paper ranks as its title and abstract node does in a hybrid
// search of those nodes alone (title words counting twice, word weights
// taken over the papers), and scores on the relevance scale: none when the
// best would score under MinScore (unless it holds every word of the
// query: it then scores MinScore), and none under MinSpanScore, so the list
// may be shorter than the limit, or empty (not nil). A retracted paper's
// score is times retractedScale, so it ranks below sound ones.
func (e *Engine) RecallPapers(ctx context.Context, req PaperRequest) ([]ScoredPaper, error) {
	q := query{org: req.Workspace, kind: KindPaper, label: LabelPaper, retrieval: req.Retrieval, limit: max(candidateLimit, req.Limit)}
	if len(req.DOIs) > 0 {
		ids, err := store.PaperIDs(ctx, e.db, req.Workspace, req.DOIs)
		if err != nil || len(ids) == 0 {
			return []ScoredPaper{}, err
		}
		q.owners = ids
	}
	p, err := e.index.Part(ctx, q.org)
	if err != nil {
		return nil, err
	}
	hs, err := e.rankIn(ctx, p, q, req.Query, nil)
	if err != nil {
		return nil, err
	}
	if len(hs) == 0 {
		return []ScoredPaper{}, nil
	}
	best, err := e.loadCandidates(ctx, q, hs[:min(coverTop, len(hs))])
	if err != nil {
		return nil, err
	}
	rel := newRelevance(req.Query, p, "")
	texts := candidateTexts(best)
	scale, _, ok := rel.scale(hs[0].score, texts)
	if !ok && rel.holdsAll(texts[0]...) {
		// The best paper holds every word of the query (a keyword, a coined
		// term, a gene name): a text too long to lie near a short query
		// in meaning is no sign that memory holds nothing about it.
		scale, ok = MinScore/hs[0].score, true
	}
	if !ok {
		return []ScoredPaper{}, nil // memory holds nothing about the query
	}
	score := map[int64]float64{}
	var ids []int64
	for _, h := range hs {
		if h.score*scale < MinSpanScore {
			break
		}
		if _, seen := score[h.owner]; !seen {
			score[h.owner] = h.score * scale
			ids = append(ids, h.owner)
		}
	}
	// The best req.Limit papers are read; a retracted one scores times
	// retractedScale before the cut at MinSpanScore and the limit, so each
	// one read makes room for the next paper in rank order. Unless req.Fill
	// is set, the list ends before a paper that scores, as its text ranks,
	// under SourceStopRatio times the best sound paper read: a retracted
	// paper that ranks first does not end the list before the sound ones.
	out := make([]ScoredPaper, 0, min(len(ids), req.Limit))
	bar := 0.0 // the best score of a sound paper read
	for next, want := 0, req.Limit; want > 0 && next < len(ids); {
		batch := ids[next:min(next+want, len(ids))]
		next += len(batch)
		byID, err := e.papersByID(ctx, req.Workspace, batch)
		if err != nil {
			return nil, err
		}
		want = 0
		for _, id := range batch {
			p, ok := byID[id]
			if !ok {
				continue
			}
			sp := ScoredPaper{Paper: *p, Score: score[id]}
			if p.Retracted {
				sp.Score *= retractedScale
				want++
			} else {
				bar = max(bar, sp.Score)
			}
			if sp.Score >= MinSpanScore {
				out = append(out, sp)
			}
		}
	}
	if bar == 0 && len(ids) > 0 {
		bar = score[ids[0]] // every paper read is retracted
	}
	if !req.Fill {
		out = slices.DeleteFunc(out, func(sp ScoredPaper) bool { return score[sp.Paper.ID] < SourceStopRatio*bar })
	}
	slices.SortStableFunc(out, func(a, b ScoredPaper) int { return cmp.Compare(b.Score, a.Score) })
	return out[:min(len(out), req.Limit)], nil
}

// papersByID reads org's papers ids, by id.
func (e *Engine) papersByID(ctx context.Context, org string, ids []int64) (map[int64]*store.Paper, error) {
	out := make(map[int64]*store.Paper, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := store.PapersByID(ctx, e.db, e.db.Engine(), org, ids)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		out[rows[i].ID] = &rows[i]
	}
	return out, nil
}
