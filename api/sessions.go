package api

// SessionLinks is the result of LinkSession.
type SessionLinks struct {
	SessionID    string `json:"session_id"`
	LinkedPapers int    `json:"linked_papers"` // distinct papers of the request, now linked
	LinkedClaims int    `json:"linked_claims"` // distinct claims of the request, now linked
}
