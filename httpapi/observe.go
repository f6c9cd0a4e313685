package httpapi

import (
	"context"
	"net/http"
	"regexp"

	"github.com/papermem/papermem/dashboard"
)

// Observer watches each request, for metrics and traces (package
// internal/telemetry implements it).
type Observer interface {
	// StartRequest is called as a request arrives. It returns the context
	// the request is served in (carrying a span, say) and the function
	// called once the request is answered, with the template of the route
	// that served it ("/v1/papers/{doi}/exists"; "" when none matched) and
	// the response's status.
	StartRequest(r *http.Request) (context.Context, func(route string, status int))
}

// dashboardRoute is the route template of every page and asset of the
// dashboard, which the route table does not serve.
const dashboardRoute = dashboard.Prefix + "*"

// routePattern drops the regular expression of a mux variable: {doi:.+}
// becomes {doi}.
var routePattern = regexp.MustCompile(`\{([^:}]+):[^}]*\}`)

// routeTemplate is the template a route is reported under.
func routeTemplate(path string) string { return routePattern.ReplaceAllString(path, "{$1}") }

// routed records the route template of the requests h serves, for the
// Observer.
func routed(template string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if info := infoFrom(r.Context()); info != nil {
			info.route = template
		}
		h.ServeHTTP(w, r)
	})
}
