package httpapi_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/papermem/papermem/httpapi"
)

// recorder is an httpapi.Observer that keeps what it is told.
type recorder struct {
	mu   sync.Mutex
	seen []observed
}

type observed struct {
	method, route string
	status        int
}

func (o *recorder) StartRequest(r *http.Request) (context.Context, func(string, int)) {
	return r.Context(), func(route string, status int) {
		o.mu.Lock()
		defer o.mu.Unlock()
		o.seen = append(o.seen, observed{r.Method, route, status})
	}
}

// TestObserverRoutes: the Observer is told each request's route template
// (the mux variables without their patterns, never the path), "" for a
// request no route serves, the dashboard's for its pages, and the status.
func TestObserverRoutes(t *testing.T) {
	o := &recorder{}
	e := newEnv(t, httpapi.Config{Observer: o}, nil)
	a := e.signup("observed@example.org", "observed-ws")
	want(t, e.do("POST", "/v1/papers", map[string]any{"doi": "10.4242/seen", "title": "Seen"}, a.auth()...), http.StatusCreated, "")
	want(t, e.do("GET", "/v1/papers/10.4242%2Fseen/exists", nil, a.auth()...), http.StatusOK, "")
	want(t, e.do("GET", "/v1/analysis/10.4242/unseen", nil, a.auth()...), http.StatusNotFound, "not_found")
	want(t, e.do("DELETE", "/v1/account/api-keys/k123", nil, a.auth()...), http.StatusNotFound, "not_found")
	want(t, e.do("GET", "/v1/nothing/here", nil), http.StatusNotFound, "not_found")
	want(t, e.do("GET", "/v1/recall", nil, a.auth()...), http.StatusMethodNotAllowed, "")
	want(t, e.do("GET", "/v1/papers/recall", nil), http.StatusUnauthorized, "")
	e.do("GET", "/dashboard/login", nil)

	o.mu.Lock()
	defer o.mu.Unlock()
	wantSeen := []observed{
		{"POST", "/v1/auth/signup", 201},
		{"POST", "/v1/papers", 201},
		{"GET", "/v1/papers/{doi}/exists", 200},
		{"GET", "/v1/analysis/{doi}", 404},
		{"DELETE", "/v1/account/api-keys/{key_id}", 404},
		{"GET", "", 404},
		{"GET", "", 405},
		{"GET", "/v1/papers/recall", 401},
		{"GET", "/dashboard/*", 200},
	}
	if diff := cmp.Diff(wantSeen, o.seen, cmp.AllowUnexported(observed{})); diff != "" {
		t.Errorf("observed (-want +got):\n%s", diff)
	}
}
