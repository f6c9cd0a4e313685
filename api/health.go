package api

// Health is the detailed health of papermem's components.
type Health struct {
	Status     string            `json:"status"` // ok, or degraded when any component is not ok
	Components []ComponentHealth `json:"components"`
}

// ComponentHealth is the result of one component's check.
type ComponentHealth struct {
	Name      string  `json:"name"`
	Status    string  `json:"status"`     // ok or error
	LatencyMS float64 `json:"latency_ms"` // how long the check took
	Detail    string  `json:"detail"`     // what was checked, or why it failed
}

// Add appends a component's result and updates the overall status.
func (h *Health) Add(c ComponentHealth) {
	h.Components = append(h.Components, c)
	if c.Status != HealthOK {
		h.Status = HealthDegraded
	}
}

// OriginState is the state of one origin service as this Memory sees it
// (its circuit breaker): Name is crossref, unpaywall or openalex; Since
// and Retry (RFC 3339) say when a down service went down and when it is
// next tried; LastError is its last failure.
type OriginState struct {
	Name      string `json:"name" doc:"crossref, unpaywall or openalex"`
	State     string `json:"state" doc:"up, or down: it failed several times in a row (no connection, a timeout, a 5xx) and is skipped, the metadata jobs waiting, until retry, when one request probes it; the cool-down doubles while it stays down (30 s to 10 min)"`
	Since     string `json:"since,omitempty" doc:"when it went down (RFC 3339)"`
	Retry     string `json:"retry,omitempty" doc:"when it is next tried (RFC 3339)"`
	Failures  int    `json:"failures" doc:"failed attempts in a row"`
	LastError string `json:"last_error,omitempty" doc:"the last failure"`
}
