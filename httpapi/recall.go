package httpapi

import (
	"fmt"
	"net/http"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
)

var recallOp = op{tag: "recall", summary: "Recall spans that answer a question within a token budget",
	req: api.RecallRequest{}, resp: papermem.RecallResult{},
	notes: "Hybrid full-text (BM25) and vector search over the workspace's memory, fused and re-ranked; spans are ordered by score, highest first, and no two spans repeat the same text. provenance tells kind (paper, document, analysis), doi, title, source, section, page, row, sheet, char_start, char_end and ingested_at. Per-user memories are never included (see /v1/user/recall). With dois, only those papers' own spans are searched, ranked and returned; DOIs not in the workspace match nothing. tags and collections scope the same way, to the papers filed so by an import (POST /v1/imports): with one of the tags, in one of the collections, and among dois when given too. " + scoreNote + limitNote}

// limitNote documents the token limit of a recall of low relevance.
var limitNote = fmt.Sprintf(" A recall of low relevance returns at most %d tokens at relevance %.2f, twice as many for each %.2f above it (%d at %.2f), whatever budget_tokens: its best spans, not a budget's worth of near misses; a budget of %d tokens or less is never cut.",
	papermem.LowRelevanceTokens, papermem.MinScore, papermem.LowRelevanceStep, 4*papermem.LowRelevanceTokens, papermem.MinScore+2*papermem.LowRelevanceStep, papermem.LowRelevanceTokens)

// scoreNote documents the scale of recall scores, the same for spans and
// papers.
var scoreNote = fmt.Sprintf("score is on a scale that means the same from one question to the next, 0 to 1: the best span's score is the recall's relevance (the geometric mean of the share of the question's rarer words the best-ranked texts hold, each word weighing by its rarity in general English, and their cosine to the question in the offline embedder's space), the others' in proportion to their rank; keywords and scope_signals may lift a span above it. A recall whose relevance is under %.2f returns no span (an empty spans list is a valid 200: memory holds nothing about the question), and no span under %.2f is returned, so the budget is a ceiling, not a target. Unless the request asks for the whole budget (fill), the answer stops when the evidence is in: before a span from a source the answer already draws on (a paper, document or analysis) that scores under %.2f times the best span taken, a memory of the user's under %.2f times it, or one from another source under %.2f times it, once min_tokens are taken, unless that span holds a word of the question (rarer than the commonest words) that the spans taken lack, and not while every span taken comes from one paper, document or analysis (a paper alone in its workspace, or dois naming one): inside one paper scores say little of how deep the evidence lies, so the answer is then the one a fixed budget of the greater of min(budget_tokens, %d) and %.1f of budget_tokens gives (1,000 tokens at a budget of 2,000: spans taken best first while they fit, whatever their score); with fill, spans are taken while they fit, whatever their score.", papermem.MinScore, papermem.MinSpanScore, papermem.StopRatio, papermem.UserStopRatio, papermem.SourceStopRatio, papermem.SourceDepth, papermem.SourceShare)

func (s *server) handleRecall(w http.ResponseWriter, r *http.Request) error {
	var req api.RecallRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	in, err := req.Input()
	if err != nil {
		return err
	}
	res, err := s.workspace(r).Recall(r.Context(), in)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, res)
}
