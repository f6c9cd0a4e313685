package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/dashboard"
)

var rootOp = op{tag: "health", summary: "Service name and API version", resp: api.RootResponse{},
	notes: "A browser (Accept preferring text/html to JSON) is redirected (302) to the dashboard, /dashboard/; any other client gets the JSON."}

func (s *server) handleRoot(w http.ResponseWriter, r *http.Request) error {
	w.Header().Add("Vary", "Accept")
	if prefersHTML(r.Header.Values("Accept")) {
		http.Redirect(w, r, dashboard.Prefix, http.StatusFound)
		return nil
	}
	return writeJSON(w, http.StatusOK, api.RootResponse{Service: ServiceName, APIVersion: "v1", Dashboard: dashboard.Prefix})
}

// prefersHTML reports whether Accept header values rank text/html (a
// browser's navigation) above JSON: above application/json when that is
// named, else at least as high as */* or application/*. Without an Accept,
// or naming no HTML, a client gets JSON.
func prefersHTML(accept []string) bool {
	html, json, wildcard := 0.0, -1.0, 0.0
	for _, v := range accept {
		for _, part := range strings.Split(v, ",") {
			media, q := mediaRange(part)
			switch media {
			case "text/html", "application/xhtml+xml":
				html = max(html, q)
			case "application/json":
				json = max(json, q)
			case "*/*", "application/*":
				wildcard = max(wildcard, q)
			}
		}
	}
	if json >= 0 {
		return html > json
	}
	return html > 0 && html >= wildcard
}

// mediaRange reads one element of an Accept header: its media range,
// lower-cased, and its quality q (1 when absent or unreadable).
func mediaRange(part string) (media string, q float64) {
	media, params, _ := strings.Cut(part, ";")
	q = 1.0
	for _, p := range strings.Split(params, ";") {
		if k, val, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(k, "q") {
			if f, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
				q = f
			}
		}
	}
	return strings.ToLower(strings.TrimSpace(media)), q
}

var healthOp = op{tag: "health", summary: "Readiness probe: the server and its database", resp: api.HealthResponse{}, errs: []int{http.StatusServiceUnavailable},
	notes: "200 while the database answers; 503 with Retry-After, status unavailable and components.database down while it cannot be reached (a ping with a 1 s timeout; its answer is kept 1 s, so probes add no load), and 200 again once it is back. A load balancer sends traffic only to servers that answer 200. With the origins on, origins lists each origin service's state (up, or down with since and retry); a down origin never fails the probe."}

func (s *server) handleHealth(w http.ResponseWriter, r *http.Request) error {
	res := api.HealthResponse{Status: "ok", Enabled: true, StorageMode: s.m.StorageMode(), VectorEnabled: true, Origins: s.m.OriginStates()}
	if s.db.check(r.Context()) != nil {
		res.Status, res.Components = "unavailable", map[string]string{"database": "down"}
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterUnavailable))
		return writeJSON(w, http.StatusServiceUnavailable, res)
	}
	return writeJSON(w, http.StatusOK, res)
}

var statusOp = op{tag: "health", summary: "Public availability summary", resp: api.StatusResponse{},
	notes: "Always 200; a failing component turns status to degraded. The database check is /v1/health's (1 s timeout, kept 1 s)."}

func (s *server) handleStatus(w http.ResponseWriter, r *http.Request) error {
	res := api.StatusResponse{Status: "ok", APIVersion: "v1", UptimeSeconds: int64(s.now().Sub(s.started) / time.Second),
		Components: map[string]string{"database": "ok"}}
	if s.db.check(r.Context()) != nil {
		res.Status, res.Components["database"] = "degraded", "down"
	}
	return writeJSON(w, http.StatusOK, res)
}

// The database check of /v1/health and /v1/status: a ping within
// healthTimeout, whose answer is kept for healthTTL.
const (
	healthTimeout = time.Second
	healthTTL     = time.Second
)

// dbHealth is the database's availability as this server sees it: the last
// check's answer, and whether an outage has been logged and not yet seen
// to end. An outage is logged once: its first failure (a check's, or a
// request's: writeError), then nothing until a check succeeds. While one
// lasts, a request that succeeds runs the check (at most one ping each
// healthTTL), so that the outage's end is seen without a probe.
type dbHealth struct {
	m   *papermem.Memory
	log *slog.Logger

	mu  sync.Mutex // held across a check: concurrent probes wait for one ping
	at  time.Time  // of the last check; zero before the first
	err error      // the last check's

	outage atomic.Bool
}

// check returns nil when the database answered a ping within healthTimeout,
// at most healthTTL ago, or the ping's error.
func (h *dbHealth) check(ctx context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.at.IsZero() && time.Since(h.at) < healthTTL {
		return h.err
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), healthTimeout)
	defer cancel()
	h.err = h.m.Ping(ctx)
	h.at = time.Now()
	if h.err != nil {
		h.failed(ctx, h.err)
	} else if h.outage.CompareAndSwap(true, false) {
		h.log.InfoContext(ctx, "database available again")
	}
	return h.err
}

// failed logs err as the start of an outage, unless one is logged already.
func (h *dbHealth) failed(ctx context.Context, err error) {
	if h.outage.CompareAndSwap(false, true) {
		h.log.WarnContext(ctx, "database unavailable; further failures are not logged until it answers again", keyErr, err)
	}
}

// succeeded notes a request that succeeded: during an outage, it checks
// whether the outage has ended.
func (h *dbHealth) succeeded(ctx context.Context) {
	if h.outage.Load() {
		h.check(ctx)
	}
}
