package httpapi

import (
	"net/http"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
)

var storeAnalysisOp = op{tag: "analyses", summary: "Store or replace the analysis of a paper", req: api.AnalysisRequest{},
	resp: api.StoredAnalysis{}, status: http.StatusCreated,
	notes: "Upserts by DOI: a second analysis of the same DOI replaces the first, in every index."}

func (s *server) handleStoreAnalysis(w http.ResponseWriter, r *http.Request) error {
	var req api.AnalysisRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	a, err := s.workspace(r).StoreAnalysis(r.Context(), req.Input())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, api.NewStoredAnalysis(a))
}

var analysisOp = op{tag: "analyses", summary: "The analysis of a paper", resp: papermem.Analysis{},
	errs: []int{http.StatusNotFound}, notes: "404 when the workspace holds no analysis of the DOI."}

func (s *server) handleAnalysis(w http.ResponseWriter, r *http.Request) error {
	doi, err := pathValue(r, "doi")
	if err != nil {
		return err
	}
	a, err := s.workspace(r).Analysis(r.Context(), doi)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, a)
}
