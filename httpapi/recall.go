package httpapi

import (
	"net/http"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
)

var recallOp = op{tag: "recall", summary: "Recall spans that answer a question within a token budget",
	req: api.RecallRequest{}, resp: papermem.RecallResult{},
	notes: "Hybrid full-text (BM25) and vector search over the workspace's memory, fused and re-ranked; spans are ordered by score, highest first, and no two spans repeat the same text. provenance tells kind (paper, document, analysis), doi, title, source, section, page, row, sheet, char_start, char_end and ingested_at. Per-user memories are never included (see /v1/user/recall). With dois, only those papers' own spans are searched, ranked and returned; DOIs not in the workspace match nothing."}

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
