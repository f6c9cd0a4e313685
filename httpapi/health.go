package httpapi

import (
	"context"
	"net/http"
	"time"
)

// rootResponse names the service.
type rootResponse struct {
	Service    string `json:"service" doc:"always papermem"`
	APIVersion string `json:"api_version" doc:"always v1"`
}

var rootOp = op{tag: "health", summary: "Service name and API version", resp: rootResponse{}}

func (s *server) handleRoot(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, rootResponse{Service: ServiceName, APIVersion: "v1"})
}

// healthResponse is the liveness probe's answer.
type healthResponse struct {
	Status        string `json:"status" doc:"always ok: the process serves"`
	Enabled       bool   `json:"enabled" doc:"the memory API accepts requests"`
	StorageMode   string `json:"storage_mode" doc:"sqlite for a database file, memory for -db :memory:"`
	VectorEnabled bool   `json:"vector_enabled" doc:"the sqlite-vec index is loaded (always true: the server does not start without it)"`
}

var healthOp = op{tag: "health", summary: "Liveness probe", resp: healthResponse{},
	notes: "Answers without touching the database; see /v1/status for a readiness check."}

func (s *server) handleHealth(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, healthResponse{Status: "ok", Enabled: true, StorageMode: s.m.StorageMode(), VectorEnabled: true})
}

// statusResponse is the public availability summary.
type statusResponse struct {
	Status        string            `json:"status" doc:"ok when every component is up, else degraded"`
	APIVersion    string            `json:"api_version"`
	UptimeSeconds int64             `json:"uptime_seconds"`
	Components    map[string]string `json:"components" doc:"component name (database) to ok or down"`
}

var statusOp = op{tag: "health", summary: "Public availability summary", resp: statusResponse{},
	notes: "Always 200; a failing component turns status to degraded. The database check times out after 2 s."}

// statusTimeout bounds the database check of /v1/status.
const statusTimeout = 2 * time.Second

func (s *server) handleStatus(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), statusTimeout)
	defer cancel()
	res := statusResponse{Status: "ok", APIVersion: "v1", UptimeSeconds: int64(s.now().Sub(s.started) / time.Second),
		Components: map[string]string{"database": "ok"}}
	if err := s.m.Ping(ctx); err != nil {
		s.log.WarnContext(ctx, "status: database ping failed", keyErr, err)
		res.Status, res.Components["database"] = "degraded", "down"
	}
	return writeJSON(w, http.StatusOK, res)
}
