package api

// Analysis is a reviewer's analysis of a paper, keyed by the paper's DOI.
type Analysis struct {
	DOI             string `json:"doi"`
	Markdown        string `json:"markdown"`
	CoreClaim       string `json:"core_claim"`
	Acceptance      string `json:"acceptance"`
	Scorecard       string `json:"scorecard"`
	SharpestFlaw    string `json:"sharpest_flaw"`
	ClaimsExtracted int    `json:"claims_extracted"`
	UpdatedAt       string `json:"updated_at,omitempty"`
}
