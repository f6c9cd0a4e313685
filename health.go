package papermem

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/papermem/papermem/internal/nodeindex"
	"github.com/papermem/papermem/internal/store"
)

// Component health statuses.
const (
	HealthOK       = "ok"       // a component answered correctly
	HealthError    = "error"    // a component failed its check
	HealthDegraded = "degraded" // overall: at least one component failed
)

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

// CheckComponent runs check and reports it as component name: ok with
// the detail it returns, or error with its error.
func CheckComponent(name string, check func() (string, error)) ComponentHealth {
	start := time.Now()
	detail, err := check()
	c := ComponentHealth{Name: name, Status: HealthOK, Detail: detail,
		LatencyMS: math.Round(float64(time.Since(start).Microseconds())) / 1000}
	if err != nil {
		c.Status, c.Detail = HealthError, err.Error()
	}
	return c
}

// Add appends a component's result and updates the overall status.
func (h *Health) Add(c ComponentHealth) {
	h.Components = append(h.Components, c)
	if c.Status != HealthOK {
		h.Status = HealthDegraded
	}
}

// healthTables are read by the storage check: every table of the
// database, the hosted service's included.
var healthTables = []string{"workspaces", "papers", "documents", "analyses", "memories", "nodes",
	"users", "api_keys", "revoked_sessions", "sessions", "accounts", "checkouts", "invoices", "usage_counters"}

// Health checks each component of the memory with a real operation:
// storage reads every table, the node index answers a BM25 query over the
// Memory's workspace (full_text_index; it loads that workspace if not
// loaded yet), the embedder embeds a probe text, and sqlite-vec scores a
// probe vector (vector_index; on PostgreSQL the probe makes a round trip
// through the database and is scored in process). A hosted service adds
// its own components (package hosted).
func (m *Memory) Health(ctx context.Context) *Health {
	h := &Health{Status: HealthOK}
	h.Add(CheckComponent("storage", func() (string, error) {
		engine, err := store.CheckStorage(ctx, m.db, m.database.Engine, healthTables)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s, %d tables readable, %s, synchronous %s", m.StorageMode(), len(healthTables), engine, m.sync), nil
	}))
	if m.origins != nil {
		// The origins' state is shown, never failed: papermem works
		// while they are down (stores wait for none but a DOI alone).
		h.Add(CheckComponent("origins", func() (string, error) {
			var parts []string
			for _, o := range m.OriginStates() {
				s := o.Name + " " + o.State
				if o.State == OriginDown {
					s += fmt.Sprintf(" since %s, next try %s (%d failures in a row: %s)", o.Since, o.Retry, o.Failures, o.LastError)
				}
				parts = append(parts, s)
			}
			queued, failing, err := m.JobsQueued(ctx)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%s; %d metadata jobs queued, %d of them failed at least once", strings.Join(parts, "; "),
				queued[jobMetadata], failing[jobMetadata]), nil
		}))
	}
	h.Add(CheckComponent("full_text_index", func() (string, error) {
		p, err := m.part(ctx, m.id)
		if err != nil {
			return "", err
		}
		hits := p.Lexical(nodeindex.Query{ExceptLabel: LabelMemory, K: 1}, "papermem health check")
		return fmt.Sprintf("node index answered a BM25 query (%d hits) over the %d nodes of workspace %s",
			len(hits), p.Size(), m.id), nil
	}))
	var probe []float32
	h.Add(CheckComponent("embedder", func() (string, error) {
		vs, err := m.embed(ctx, []string{"papermem health check"})
		if err != nil {
			return "", err
		}
		probe = vs[0]
		return fmt.Sprintf("%s, %d dimensions", m.embedder.Name(), m.embedder.Dim()), nil
	}))
	h.Add(CheckComponent("vector_index", func() (string, error) {
		if probe == nil {
			probe = make([]float32, m.embedder.Dim())
			probe[0] = 1
		}
		if m.database.Engine == store.Postgres {
			// No sqlite-vec: the probe goes through the database as a
			// stored vector does and is scored in process, as recall
			// scores vectors.
			echo, n, err := store.EchoVector(ctx, m.db, probe)
			var cos float64
			for i, x := range echo {
				cos += float64(x * probe[i])
			}
			return fmt.Sprintf("PostgreSQL returned a probe vector, scored in process (cosine %.3f); %d vectors stored", cos, n), err
		}
		version, n, err := store.CheckVectors(ctx, m.db, probe)
		return fmt.Sprintf("sqlite-vec %s scored a probe; %d vectors stored", version, n), err
	}))
	return h
}

// Origin states (OriginState.State).
const (
	OriginUp   = "up"   // asked as usual
	OriginDown = "down" // failed several times in a row: skipped until Retry, then probed
)

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

// OriginStates reports each origin service's state (Crossref, Unpaywall,
// OpenAlex), or nil when no origin is configured.
func (m *Memory) OriginStates() []OriginState {
	if m.origins == nil {
		return nil
	}
	var out []OriginState
	for _, s := range m.origins.client.States() {
		o := OriginState{Name: s.Name, State: OriginUp, Failures: s.Failures, LastError: s.LastError}
		if s.Down {
			o.State, o.Since, o.Retry = OriginDown, timestamp(s.Since), timestamp(s.Retry)
		}
		out = append(out, o)
	}
	return out
}
