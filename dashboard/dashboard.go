// Package dashboard serves papermem's web console under /dashboard/: sign
// up and log in, API keys, memory, recall, billing, users, the session
// graph and the founder console, as server-rendered html/template pages
// over the library, with a little JavaScript from an embedded file. It
// loads nothing from elsewhere, so it works with no internet.
//
// Security. A login sets an HttpOnly, SameSite=Strict cookie (Secure over
// TLS, the server's own or a proxy's that sets X-Forwarded-Proto) holding a session token that Server issues and checks exactly as
// the /v1 API checks bearer session tokens: a logged-out session or a
// disabled user is refused. Cookies are read only here; the /v1 API never
// accepts them. Every state-changing request (POST) must carry the
// session's CSRF token — a hidden form field "csrf" or the X-CSRF-Token
// header, an HMAC of the session id under a key kept in the database — and
// pass net/http's CrossOriginProtection: not marked cross-site by
// Sec-Fetch-Site, and an Origin, when sent, naming this host.
// Login and signup, which have no session yet, take the origin check.
// Every response carries a Content-Security-Policy allowing scripts and
// styles from this origin only: no inline script, no unsafe-inline.
package dashboard

import (
	"context"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
)

// Prefix is the path the dashboard is served under.
const Prefix = "/dashboard/"

// Server is what the /v1 API server hosting the dashboard shares with it:
// its session tokens, so that a cookie passes the very checks a bearer
// session token passes; its founder list; its login limit; its health.
type Server interface {
	// Issue signs a session token for u and says how long it lasts.
	Issue(ctx context.Context, u *hosted.User) (token string, ttl time.Duration, err error)
	// Authenticate checks a session token and that its session still
	// stands. Errors: EUNAUTHORIZED.
	Authenticate(ctx context.Context, token string) (hosted.Session, *hosted.User, error)
	// IsFounder reports whether u, as read from the database, has founder
	// access.
	IsFounder(u *hosted.User) bool
	// LimitAuth applies the per-address limit of login and signup attempts.
	LimitAuth(w http.ResponseWriter, r *http.Request) error
	// Limit applies u's rate limit, shared with u's session tokens on /v1.
	Limit(w http.ResponseWriter, r *http.Request, u *hosted.User) error
	// Health checks the components of the library, of the hosted service
	// and of the server.
	Health(ctx context.Context) *papermem.Health
}

// Config configures the dashboard. Server and Status are required.
type Config struct {
	Server Server
	// Status is the HTTP status of an error, as the /v1 API answers it.
	Status func(error) int
	// Logger receives internal errors. Nil means slog.Default().
	Logger *slog.Logger
	// Pay lets the billing page pay checkouts through the built-in
	// provider itself (see httpapi.Config.DashboardPayments). False means it
	// does not take payments.
	Pay bool
}

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// handler serves the dashboard.
type handler struct {
	svc   *hosted.Service
	m     *papermem.Memory // svc's
	cfg   Config
	log   *slog.Logger
	mux   *http.ServeMux
	pages map[string]*template.Template

	csrfMu  sync.Mutex
	csrfKey []byte // see csrfSecret
}

// New returns the dashboard over svc and its memory, to be mounted at
// Prefix.
func New(svc *hosted.Service, cfg Config) http.Handler {
	h := &handler{svc: svc, m: svc.Memory(), cfg: cfg, log: cfg.Logger, mux: http.NewServeMux(), pages: parsePages()}
	if h.log == nil {
		h.log = slog.Default()
	}
	// The embedded files themselves, not an fs.Sub of them: fs.Sub refuses
	// a name that is not a valid path (invalid UTF-8) with ErrInvalid,
	// which the file server answers 500, where embed.FS reports it does
	// not exist: 404.
	h.mux.Handle("GET /dashboard/static/", http.StripPrefix(Prefix, http.FileServerFS(staticFiles)))
	h.routes()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setSecurityHeaders(w.Header())
		h.mux.ServeHTTP(w, r)
	})
}

// csp allows this origin's scripts, styles and fetches only.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

func setSecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
}

// pageFunc serves a page for a signed-in viewer; it returns its error
// instead of writing it.
type pageFunc func(w http.ResponseWriter, r *http.Request, v *viewer) error

// page is what every template gets.
type page struct {
	Title  string
	Nav    string // the menu entry to highlight
	Viewer *viewer
	Error  string
	Data   any
}

// CSRF is the viewer's CSRF token, for forms.
func (p *page) CSRF() string {
	if p.Viewer == nil {
		return ""
	}
	return p.Viewer.csrf
}

// render writes the named page with status.
func (h *handler) render(w http.ResponseWriter, r *http.Request, status int, name string, p *page) {
	t, ok := h.pages[name]
	if !ok {
		h.log.ErrorContext(r.Context(), "dashboard: no template", "name", name)
		http.Error(w, "Internal error.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := t.ExecuteTemplate(w, "layout", p); err != nil {
		h.log.ErrorContext(r.Context(), "dashboard: render", "name", name, "err", err)
	}
}

// fail renders err on the error page with its status; internal errors are
// logged and their details withheld.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, v *viewer, err error) {
	status, msg := h.failure(r, err)
	h.render(w, r, status, "error", &page{Title: http.StatusText(status), Viewer: v, Error: msg})
}

// failure is the status of err and the message to show for it. As on /v1,
// an outside service's failure (502), a busy server (503) and a full disk
// (507) are explained; any other 5xx is logged and its details withheld.
func (h *handler) failure(r *http.Request, err error) (int, string) {
	status := h.cfg.Status(err)
	msg := papermem.ErrorMessage(err)
	switch status {
	case http.StatusBadGateway, http.StatusInsufficientStorage:
		h.log.WarnContext(r.Context(), "dashboard request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	case http.StatusServiceUnavailable:
	default:
		if status >= 500 {
			h.log.ErrorContext(r.Context(), "dashboard request failed", "method", r.Method, "path", r.URL.Path, "err", err)
			msg = "Internal error."
		}
	}
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		msg = "The request is too large."
	case status == http.StatusTooManyRequests:
		msg = "Too many requests: wait a moment and try again."
	}
	return status, msg
}

// shared are the templates every page is parsed with.
var shared = []string{"templates/layout.html", "templates/chart.html"}

// parsePages parses each page template with the shared ones.
func parsePages() map[string]*template.Template {
	names, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		panic(err) // the pattern is constant
	}
	pages := map[string]*template.Template{}
	for _, n := range names {
		if slices.Contains(shared, n) {
			continue
		}
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		pages[name] = template.Must(template.New(name).Funcs(funcs).ParseFS(templateFiles, append([]string{n}, shared...)...))
	}
	return pages
}
