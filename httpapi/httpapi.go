// Package httpapi serves papermem's /v1 JSON API over a *hosted.Service
// (the hosted service's machinery over a *papermem.Memory), and the web
// console of package dashboard under /dashboard/.
//
// New returns the handler. Every route is listed in routes.go with the
// credential it needs; error statuses are chosen in error.go only; the
// OpenAPI document served at /v1/openapi.json is generated from the same
// route table, so it cannot drift from what is served.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/mux"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
)

// Defaults used when the corresponding Config field is zero.
const (
	DefaultMaxBodyBytes  = 16 << 20 // largest JSON request body
	DefaultAuthRateLimit = 20       // signup, login and password-change attempts a minute per client address
)

// ServiceName is what GET / reports as the service.
const ServiceName = "papermem"

// Config configures the handler. The zero Config is a working production
// setup: generated JWT secret, plan rate limits, no developer headers.
type Config struct {
	// JWTSecret signs session tokens (HS256). Nil means a random secret
	// generated once and kept in the database, so tokens survive restarts.
	JWTSecret []byte

	// FounderEmails are the accounts with founder access besides those
	// granted with hosted.Service.GrantFounder. Compared case-insensitively.
	FounderEmails []string

	// DevAuth accepts the developer headers X-Dev-Org-Id and X-Dev-User-Id
	// on memory endpoints, from loopback clients only. False means they are
	// ignored. Never enable it on a server reachable from elsewhere.
	DevAuth bool

	// RateLimit is the number of requests a minute allowed to each
	// credential. Zero means the limit of the workspace's plan.
	RateLimit int

	// SharedLimits keeps the token buckets of the rate limits in the
	// database (hosted.Service.TakeRequest), so that every server over it spends
	// from the same buckets: a limit of N a minute stays N however many
	// servers share the load. Each limited request then costs a write; on
	// SQLite a turn in the one write queue (see docs/operations.md, Several servers).
	// False means buckets in this process: each server enforces the limits
	// on the requests it serves, which is exact for a single server.
	// cmd/server sets it over PostgreSQL unless PAPERMEM_SHARED_LIMITS=0.
	SharedLimits bool

	// AuthRateLimit is the number of signup, login and password-change
	// attempts a minute allowed to each client address. Zero means
	// DefaultAuthRateLimit.
	AuthRateLimit int

	// TrustedProxies are the addresses of the proxies in front of the
	// server. A request whose peer is one of them comes from the right-most
	// address of its X-Forwarded-For that is not: the client address of
	// the per-address limits of signup and login, of the developer
	// headers' loopback check and of the request log's client. Nil means
	// X-Forwarded-For is ignored and the client is the connection's peer.
	TrustedProxies []netip.Prefix

	// MaxBodyBytes caps a JSON request body. Zero means DefaultMaxBodyBytes.
	MaxBodyBytes int64

	// DashboardPayments lets the dashboard act as the payment page of the
	// built-in provider (hosted.SignedOrders): its pay button signs and
	// confirms a checkout itself, so any signed-in user can move their
	// workspace to a paid plan without paying. For demonstrations and tests
	// only. False means the dashboard starts checkouts, and the provider's
	// signed confirmation (POST /v1/billing/checkout/confirm) pays them.
	DashboardPayments bool

	// BackupDir is where POST /v1/admin/backup writes its copies. Empty
	// means "backups" beside the database (Memory.BackupInDir).
	BackupDir string

	// Logger receives the request log. Nil means slog.Default().
	Logger *slog.Logger

	// Observer, when not nil, is told of every request with its route
	// template and status, for metrics and traces. Nil means none.
	Observer Observer

	// Now returns the current time for tokens. Nil means time.Now.
	Now func() time.Time
}

// server holds what the handlers share.
type server struct {
	svc      *hosted.Service
	m        *papermem.Memory // svc's
	cfg      Config
	log      *slog.Logger
	now      func() time.Time
	started  time.Time
	router   *mux.Router
	founders map[string]bool
	rates    *limiter      // per credential
	auths    *limiter      // per client address on signup, login and password change
	local    *localBuckets // the credential buckets of rates, unless SharedLimits
	mcp      http.Handler
	mcpLimit int64
	db       *dbHealth

	secretMu sync.Mutex
	secret   []byte

	openAPIOnce sync.Once
	openAPIDoc  []byte
	openAPIErr  error
}

// Handler serves the /v1 API. A *Handler is safe for concurrent use.
type Handler struct {
	s      *server
	h      http.Handler // the logged routes, behind the drain check
	routes http.Handler // the dashboard and the /v1 router

	mu       sync.RWMutex // held for writing when draining starts
	draining bool
	inflight sync.WaitGroup
}

// New returns the handler of the /v1 API over svc and its memory. Both
// must stay open while the handler serves.
func New(svc *hosted.Service, cfg Config) *Handler {
	s := newServer(svc, cfg)
	h := &Handler{s: s, routes: s.withDashboard(s.router)}
	h.h = s.logRequests(http.HandlerFunc(h.serve))
	return h
}

// ServeHTTP serves one request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.h.ServeHTTP(w, r) }

// serve routes the request unless the handler drains.
func (h *Handler) serve(w http.ResponseWriter, r *http.Request) {
	h.mu.RLock()
	if h.draining {
		h.mu.RUnlock()
		w.Header().Set("Connection", "close")
		h.s.writeError(w, r, errDraining)
		return
	}
	h.inflight.Add(1)
	h.mu.RUnlock()
	defer h.inflight.Done()
	h.routes.ServeHTTP(w, r)
}

// Drain makes the handler answer every new request 503 unavailable (with
// Retry-After, closing the connection) and waits until the requests in
// flight have finished, or ctx ends. A server shutting down drains its
// handler before http.Server.Shutdown, so that no request is cut off and
// none that arrives meanwhile finds the port closed.
func (h *Handler) Drain(ctx context.Context) error {
	h.mu.Lock()
	h.draining = true
	h.mu.Unlock()
	done := make(chan struct{})
	go func() {
		h.inflight.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// newServer builds the server and its router.
func newServer(svc *hosted.Service, cfg Config) *server {
	m := svc.Memory()
	s := &server{svc: svc, m: m, cfg: cfg, log: cfg.Logger, now: cfg.Now, founders: map[string]bool{}}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.cfg.MaxBodyBytes <= 0 {
		s.cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if s.cfg.AuthRateLimit <= 0 {
		s.cfg.AuthRateLimit = DefaultAuthRateLimit
	}
	for _, e := range cfg.FounderEmails {
		if e = strings.ToLower(strings.TrimSpace(e)); e != "" {
			s.founders[e] = true
		}
	}
	s.started = s.now()
	s.db = &dbHealth{m: m, log: s.log}
	s.secret = cfg.JWTSecret
	if cfg.SharedLimits {
		s.rates, s.auths = newLimiter(sharedBuckets{svc}), newLimiter(sharedBuckets{svc})
	} else {
		s.local = newLocalBuckets()
		s.rates, s.auths = newLimiter(s.local), newLimiter(newLocalBuckets())
	}
	s.mcp = s.newMCPHandler()
	s.router = mux.NewRouter().UseEncodedPath()
	s.router.NotFoundHandler = s.adapt(func(w http.ResponseWriter, r *http.Request) error {
		return papermem.Errorf(papermem.ENOTFOUND, "No route %s %s.", r.Method, r.URL.EscapedPath())
	})
	s.router.MethodNotAllowedHandler = s.adapt(func(w http.ResponseWriter, r *http.Request) error {
		return errMethodNotAllowed
	})
	for _, rt := range s.routes() {
		s.router.Handle(rt.path, routed(routeTemplate(rt.path), s.chain(rt))).Methods(rt.method)
	}
	return s
}

// handlerFunc is a handler that returns its error instead of writing it.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// adapt turns a handlerFunc into an http.Handler that writes its error.
func (s *server) adapt(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		} else {
			s.db.succeeded(r.Context())
		}
	})
}

// jwtSecret returns the configured secret or the one kept in the database.
func (s *server) jwtSecret(ctx context.Context) ([]byte, error) {
	s.secretMu.Lock()
	defer s.secretMu.Unlock()
	if s.secret == nil {
		b, err := s.svc.Secret(ctx, "jwt")
		if err != nil {
			return nil, err
		}
		s.secret = b
	}
	return s.secret, nil
}
