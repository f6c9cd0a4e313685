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
