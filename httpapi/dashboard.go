package httpapi

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/dashboard"
	"github.com/papermem/papermem/hosted"
)

// withDashboard serves the web console under /dashboard/ and api the rest.
// The console's cookie is read there only: the /v1 routes never look at
// cookies.
func (s *server) withDashboard(api http.Handler) http.Handler {
	d := dashboard.New(s.svc, dashboard.Config{Server: dashServer{s}, Logger: s.log, Pay: s.cfg.DashboardPayments,
		Status: func(err error) int { st, _ := statusOf(err); return st }})
	dash := routed(dashboardRoute, d)
	redirect := routed(dashboardRoute, http.RedirectHandler(dashboard.Prefix, http.StatusMovedPermanently))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; {
		case strings.HasPrefix(p, dashboard.Prefix):
			dash.ServeHTTP(w, r)
		case p == strings.TrimSuffix(dashboard.Prefix, "/"):
			redirect.ServeHTTP(w, r)
		default:
			api.ServeHTTP(w, r)
		}
	})
}

// dashServer gives the dashboard the session tokens, founders, rate
// limits and health of the /v1 API.
type dashServer struct{ s *server }

func (d dashServer) Issue(ctx context.Context, u *hosted.User) (string, time.Duration, error) {
	tok, err := d.s.issueToken(ctx, u)
	if err != nil {
		return "", 0, err
	}
	return tok.AccessToken, time.Duration(tok.ExpiresIn) * time.Second, nil
}

// Authenticate checks a token exactly as a bearer session token is checked.
func (d dashServer) Authenticate(ctx context.Context, token string) (hosted.Session, *hosted.User, error) {
	sess, u, err := d.s.authenticateSession(ctx, token)
	if err != nil {
		return hosted.Session{}, nil, err
	}
	return *sess, u, nil
}

func (d dashServer) IsFounder(u *hosted.User) bool { return d.s.founderAccount(u) }

func (d dashServer) LimitAuth(w http.ResponseWriter, r *http.Request) error {
	return d.s.limitAuth(w, r)
}

// Limit takes from the bucket of u's session tokens, and names u and its
// workspace in the request's log line.
func (d dashServer) Limit(w http.ResponseWriter, r *http.Request, u *hosted.User) error {
	p := &principal{workspace: u.WorkspaceID, user: u.UserID, cred: credSession}
	if info := infoFrom(r.Context()); info != nil {
		info.p = p
	}
	return limit(w, r, d.s.rates, p.workspace, p.rateKey(), func() int { return d.s.planLimit(r.Context(), u.WorkspaceID) })
}

func (d dashServer) Health(ctx context.Context) *papermem.Health { return d.s.health(ctx) }
