package httpapi

import (
	"net/http"

	"github.com/papermem/papermem"
)

// recallRequest asks for the spans of the workspace's memory that answer a
// question.
type recallRequest struct {
	Question     string   `json:"question" required:"true" doc:"the question to answer"`
	Keywords     []string `json:"keywords" doc:"extra terms; spans containing them rank higher. Default []"`
	Domain       *string  `json:"domain" doc:"only spans of this domain; null or absent means every domain"`
	Label        string   `json:"label" doc:"node label: Claim (default), Passage, Paper, Analysis, Document or Any (all but per-user memories)"`
	BudgetTokens *int     `json:"budget_tokens" doc:"token budget, 1..200000; null or absent means 8000. Invariant: total_tokens == sum(span.tokens) <= budget_tokens"`
	SectionTypes []string `json:"section_types" doc:"only spans of these section types: abstract, introduction, background, methods, results, discussion, conclusion, limitations, references, body, table, sheet; unknown values are 400"`
	ScopeSignals []string `json:"scope_signals" doc:"boost spans carrying the cues of: open_questions, mechanisms, reliability, what_to_build, limitations, evidence; unknown values are 400"`
}

// toLibrary converts the request, rejecting an explicit budget below 1.
func (req *recallRequest) toLibrary() (papermem.RecallRequest, error) {
	out := papermem.RecallRequest{Question: req.Question, Keywords: req.Keywords, Label: req.Label,
		SectionTypes: req.SectionTypes, ScopeSignals: req.ScopeSignals}
	if req.Domain != nil {
		out.Domain = *req.Domain
	}
	if req.BudgetTokens != nil {
		if *req.BudgetTokens < 1 {
			return out, papermem.Errorf(papermem.EINVALID, "budget_tokens must be between 1 and %d.", papermem.MaxBudgetTokens)
		}
		out.BudgetTokens = *req.BudgetTokens
	}
	return out, nil
}

var recallOp = op{tag: "recall", summary: "Recall spans that answer a question within a token budget",
	req: recallRequest{}, resp: papermem.RecallResult{},
	notes: "Hybrid full-text (BM25) and vector search over the workspace's memory, fused and re-ranked; spans are ordered by score, highest first, and no two spans repeat the same text. provenance tells kind (paper, document, analysis), doi, title, source, section, page, row, sheet, char_start, char_end and ingested_at. Per-user memories are never included (see /v1/user/recall)."}

func (s *server) handleRecall(w http.ResponseWriter, r *http.Request) error {
	var req recallRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	in, err := req.toLibrary()
	if err != nil {
		return err
	}
	res, err := s.workspace(r).Recall(r.Context(), in)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, res)
}
