package httpapi

import (
	"net/http"

	"github.com/papermem/papermem"
)

// analysisRequest is an analysis of a paper.
type analysisRequest struct {
	DOI             string `json:"doi" required:"true" doc:"the paper's DOI; the paper need not be in memory"`
	Markdown        string `json:"markdown" required:"true" doc:"the analysis; indexed as Analysis nodes so recall finds it"`
	CoreClaim       string `json:"core_claim"`
	Acceptance      string `json:"acceptance"`
	Scorecard       string `json:"scorecard"`
	SharpestFlaw    string `json:"sharpest_flaw"`
	ClaimsExtracted int    `json:"claims_extracted" doc:"0 or absent means the number of claims found in the markdown"`
}

// storedAnalysis answers a store.
type storedAnalysis struct {
	DOI             string `json:"doi"`
	Stored          bool   `json:"stored" doc:"always true"`
	UpdatedAt       string `json:"updated_at"`
	ClaimsExtracted int    `json:"claims_extracted"`
}

var storeAnalysisOp = op{tag: "analyses", summary: "Store or replace the analysis of a paper", req: analysisRequest{},
	resp: storedAnalysis{}, status: http.StatusCreated,
	notes: "Upserts by DOI: a second analysis of the same DOI replaces the first, in every index."}

func (s *server) handleStoreAnalysis(w http.ResponseWriter, r *http.Request) error {
	var req analysisRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	a, err := s.workspace(r).StoreAnalysis(r.Context(), papermem.Analysis{DOI: req.DOI, Markdown: req.Markdown,
		CoreClaim: req.CoreClaim, Acceptance: req.Acceptance, Scorecard: req.Scorecard,
		SharpestFlaw: req.SharpestFlaw, ClaimsExtracted: req.ClaimsExtracted})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, storedAnalysis{DOI: a.DOI, Stored: true, UpdatedAt: a.UpdatedAt, ClaimsExtracted: a.ClaimsExtracted})
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
