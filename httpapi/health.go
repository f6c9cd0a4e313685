package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/dashboard"
)

var rootOp = op{tag: "health", summary: "Service name and API version", resp: api.RootResponse{}}

func (s *server) handleRoot(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, api.RootResponse{Service: ServiceName, APIVersion: "v1", Dashboard: dashboard.Prefix})
}

var healthOp = op{tag: "health", summary: "Liveness probe", resp: api.HealthResponse{},
	notes: "Answers without touching the database; see /v1/status for a readiness check."}

func (s *server) handleHealth(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, api.HealthResponse{Status: "ok", Enabled: true, StorageMode: s.m.StorageMode(), VectorEnabled: true})
}

var statusOp = op{tag: "health", summary: "Public availability summary", resp: api.StatusResponse{},
	notes: "Always 200; a failing component turns status to degraded. The database check times out after 2 s."}

// statusTimeout bounds the database check of /v1/status.
const statusTimeout = 2 * time.Second

func (s *server) handleStatus(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), statusTimeout)
	defer cancel()
	res := api.StatusResponse{Status: "ok", APIVersion: "v1", UptimeSeconds: int64(s.now().Sub(s.started) / time.Second),
		Components: map[string]string{"database": "ok"}}
	if err := s.m.Ping(ctx); err != nil {
		s.log.WarnContext(ctx, "status: database ping failed", keyErr, err)
		res.Status, res.Components["database"] = "degraded", "down"
	}
	return writeJSON(w, http.StatusOK, res)
}
