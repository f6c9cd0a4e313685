package httpapi_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/testdb"
)

func TestFounderConsole(t *testing.T) {
	e := billingEnv(t, httpapi.Config{FounderEmails: []string{"Root@Example.org"}})
	root := e.signup("root@example.org", "lab-root")
	gus := e.signup("gus@example.org", "lab-gus")
	ada := e.signup("ada@example.org", "lab-ada")
	if err := e.svc.GrantFounder(context.Background(), "gus@example.org"); err != nil {
		t.Fatal(err)
	}
	e.do("POST", "/v1/papers", map[string]any{"doi": "10.1000/a", "title": "A paper", "text": "Abstract\nA finding was made."}, ada.auth()...)
	adaKey := e.apiKey(ada.auth()...)

	admin := []struct{ method, path string }{
		{"GET", "/v1/admin/overview"},
		{"GET", "/v1/admin/workspaces"},
		{"GET", "/v1/admin/users"},
		{"GET", "/v1/admin/health"},
		{"GET", "/v1/admin/workspaces/lab-ada/activity"},
		{"POST", "/v1/admin/workspaces/lab-ada/plan"},
		{"POST", "/v1/admin/workspaces/lab-ada/users"},
		{"POST", "/v1/admin/backup"},
	}
	t.Run("ErrForbidden", func(t *testing.T) {
		body := map[string]any{"tier": "enterprise", "email": "x@example.org", "password": "long enough"}
		for _, rt := range admin {
			want(t, e.do(rt.method, rt.path, body, ada.auth()...), http.StatusForbidden, "forbidden")
			want(t, e.do(rt.method, rt.path, body, bearer(adaKey)...), http.StatusForbidden, "forbidden")
			want(t, e.do(rt.method, rt.path, body), http.StatusUnauthorized, "unauthorized")
		}
		var a papermem.Account
		e.do("GET", "/v1/account", nil, ada.auth()...).json(t, &a)
		if a.Plan.Slug != "starter" {
			t.Errorf("a refused set-plan changed the plan to %s", a.Plan.Slug)
		}
	})
	t.Run("Overview", func(t *testing.T) {
		r := e.do("GET", "/v1/admin/overview", nil, root.auth()...)
		want(t, r, http.StatusOK, "")
		var o hosted.Overview
		r.json(t, &o)
		if o.OrgCount != 3 || o.UserCount != 3 || o.WorkspacesByPlan["starter"] != 3 ||
			o.Usage.Counters["papers_stored"] != 1 || o.Usage.Counters["api_requests"] == 0 ||
			o.Health == nil || o.Health.Status != "ok" || len(o.Health.Components) != 7 {
			t.Errorf("overview %s", r.body)
		}
	})
	t.Run("GrantedFounder", func(t *testing.T) {
		want(t, e.do("GET", "/v1/admin/overview", nil, gus.auth()...), http.StatusOK, "")
	})
	t.Run("Health", func(t *testing.T) {
		r := e.do("GET", "/v1/admin/health", nil, root.auth()...)
		want(t, r, http.StatusOK, "")
		var h papermem.Health
		r.json(t, &h)
		var names []string
		for _, c := range h.Components {
			names = append(names, c.Name)
			if c.Status != "ok" || c.Detail == "" {
				t.Errorf("component %+v", c)
			}
		}
		wantNames := []string{"storage", "full_text_index", "embedder", "vector_index", "auth", "usage_meter", "rate_limiter"}
		if diff := cmp.Diff(wantNames, names); diff != "" || h.Status != "ok" {
			t.Errorf("health %s (-want +got):\n%s", h.Status, diff)
		}
	})
	t.Run("Workspaces", func(t *testing.T) {
		r := e.do("GET", "/v1/admin/workspaces", nil, root.auth()...)
		want(t, r, http.StatusOK, "")
		var res struct{ Workspaces []hosted.WorkspaceSummary }
		r.json(t, &res)
		got := map[string]int{}
		for _, w := range res.Workspaces {
			got[w.WorkspaceID] = w.Papers
		}
		if diff := cmp.Diff(map[string]int{"lab-root": 0, "lab-gus": 0, "lab-ada": 1}, got); diff != "" {
			t.Errorf("workspaces' papers (-want +got):\n%s", diff)
		}
	})
	t.Run("Users", func(t *testing.T) {
		r := e.do("GET", "/v1/admin/users", nil, root.auth()...)
		want(t, r, http.StatusOK, "")
		var res struct {
			Users []map[string]any `json:"users"`
		}
		r.json(t, &res)
		founders := map[string]any{}
		for _, u := range res.Users {
			founders[u["email"].(string)] = u["is_founder"]
			if _, ok := u["password_hash"]; ok {
				t.Errorf("user record with a hash: %v", u)
			}
		}
		wantFounders := map[string]any{"root@example.org": true, "gus@example.org": true, "ada@example.org": false}
		if diff := cmp.Diff(wantFounders, founders); diff != "" {
			t.Errorf("founders (-want +got):\n%s", diff)
		}
	})
	t.Run("Activity", func(t *testing.T) {
		r := e.do("GET", "/v1/admin/workspaces/lab-ada/activity", nil, root.auth()...)
		want(t, r, http.StatusOK, "")
		var a hosted.WorkspaceActivity
		r.json(t, &a)
		if a.WorkspaceID != "lab-ada" || a.Plan.Slug != "starter" || a.Overview.Memory.Papers != 1 || a.Overview.APIKeys != 1 ||
			a.Overview.Bill == nil || len(a.Users) != 1 || a.Users[0].UserID != ada.userID {
			t.Errorf("activity %s", r.body)
		}
		want(t, e.do("GET", "/v1/admin/workspaces/lab-none/activity", nil, root.auth()...), http.StatusNotFound, "not_found")
	})
	t.Run("SetPlan", func(t *testing.T) {
		r := e.do("POST", "/v1/admin/workspaces/lab-ada/plan", map[string]any{"tier": "Enterprise Tier"}, root.auth()...)
		want(t, r, http.StatusOK, "")
		var a papermem.Account
		r.json(t, &a)
		if a.WorkspaceID != "lab-ada" || a.Plan.Slug != "enterprise" || len(a.Invoices) != 0 {
			t.Errorf("set plan %s", r.body)
		}
		e.do("GET", "/v1/account", nil, ada.auth()...).json(t, &a)
		if a.Plan.Slug != "enterprise" {
			t.Errorf("ada's plan is %s", a.Plan.Slug)
		}
		want(t, e.do("POST", "/v1/admin/workspaces/lab-ada/plan", map[string]any{"tier": "gold"}, root.auth()...), http.StatusBadRequest, "unknown_plan")
		want(t, e.do("POST", "/v1/admin/workspaces/lab-ada/plan", map[string]any{}, root.auth()...), http.StatusBadRequest, "invalid_input")
		want(t, e.do("POST", "/v1/admin/workspaces/lab-none/plan", map[string]any{"tier": "team"}, root.auth()...), http.StatusNotFound, "not_found")
	})
	t.Run("CreateUser", func(t *testing.T) {
		e.mu.Lock()
		e.secrets = append(e.secrets, "carol-secret-pw")
		e.mu.Unlock()
		r := e.do("POST", "/v1/admin/workspaces/lab-ada/users", map[string]any{"email": "carol@example.org", "password": "carol-secret-pw", "name": "Carol"}, root.auth()...)
		want(t, r, http.StatusCreated, "")
		var u hosted.User
		r.json(t, &u)
		if u.WorkspaceID != "lab-ada" || u.Email != "carol@example.org" || u.Name != "Carol" || u.Role != hosted.RoleMember {
			t.Errorf("created %s", r.body)
		}
		want(t, e.do("POST", "/v1/auth/login", map[string]any{"email": "carol@example.org", "password": "carol-secret-pw"}), http.StatusOK, "")
		for _, tc := range []struct {
			org  string
			body any
			code string
			st   int
		}{
			{"lab-ada", map[string]any{"email": "CAROL@example.org", "password": "another-pw"}, "duplicate_email", http.StatusBadRequest},
			{"lab-ada", map[string]any{"email": "dan@example.org", "password": "short"}, "invalid_input", http.StatusBadRequest},
			{"lab-ada", map[string]any{"email": "dan@example.org"}, "invalid_input", http.StatusBadRequest},
			{"lab-ada", map[string]any{"email": "not-an-email", "password": "long enough"}, "invalid_input", http.StatusBadRequest},
			{"lab-none", map[string]any{"email": "dan@example.org", "password": "long enough"}, "not_found", http.StatusNotFound},
		} {
			want(t, e.do("POST", "/v1/admin/workspaces/"+tc.org+"/users", tc.body, root.auth()...), tc.st, tc.code)
		}
	})
}

// TestAdminBackup makes a backup as a founder and opens it as a database:
// it holds the workspace's paper and every component is healthy. The
// response names the file and no secret (the env's leak check), and the
// route is founder-only (TestFounderConsole checks 401 and 403). On
// PostgreSQL the route refuses, naming pg_dump.
func TestAdminBackup(t *testing.T) {
	dir := t.TempDir()
	e := newEnv(t, httpapi.Config{FounderEmails: []string{"root@example.org"}, BackupDir: dir}, nil)
	root := e.signup("root@example.org", "lab-root")
	want(t, e.do("POST", "/v1/papers", map[string]any{"doi": "10.1000/kept", "title": "Kept", "text": "Backups keep papers."}, root.auth()...), http.StatusCreated, "")
	r := e.do("POST", "/v1/admin/backup", nil, root.auth()...)
	if testdb.Postgres() {
		want(t, r, http.StatusUnsupportedMediaType, "unsupported_format")
		if !strings.Contains(string(r.body), "pg_dump") {
			t.Errorf("refusal does not name pg_dump: %s", r.body)
		}
		return
	}
	want(t, r, http.StatusOK, "")
	var b papermem.BackupFile
	r.json(t, &b)
	if filepath.Dir(b.Path) != dir || b.Bytes == 0 {
		t.Fatalf("backup %+v, want a file in %s", b, dir)
	}
	m, err := papermem.Open(context.Background(), b.Path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if ok, err := m.Workspace("lab-root").PaperExists(context.Background(), "10.1000/kept"); err != nil || !ok {
		t.Fatalf("restored backup lacks the paper (%v)", err)
	}
	for _, c := range m.Health(context.Background()).Components {
		if c.Status != papermem.HealthOK {
			t.Errorf("restored backup: %s: %s", c.Name, c.Detail)
		}
	}
}
