package httpapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gorilla/mux"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/internal/testutil"
)

// seedRoutes are the 49 endpoints of the contract (the seed's 45 and the
// four of DECISIONS.md), as "METHOD path".
var seedRoutes = []string{
	"POST /v1/auth/signup", "POST /v1/auth/login", "GET /v1/auth/me",
	"POST /v1/recall",
	"GET /v1/papers/recall", "GET /v1/papers/{doi}/exists", "POST /v1/papers", "POST /v1/papers/batch",
	"POST /v1/papers/{doi}/fetch", "DELETE /v1/papers/{doi}",
	"POST /v1/analysis", "GET /v1/analysis/{doi}",
	"POST /v1/sessions/link", "GET /v1/graph", "GET /v1/graph/neighborhood/{node_id}", "POST /v1/graph/materialize",
	"GET /v1/ingest/formats", "POST /v1/ingest",
	"GET /v1/account", "PATCH /v1/account", "POST /v1/account/api-keys", "GET /v1/account/api-keys",
	"DELETE /v1/account/api-keys/{key_id}",
	"POST /v1/billing/checkout", "POST /v1/billing/checkout/confirm", "GET /v1/usage", "GET /v1/billing", "GET /v1/analytics",
	"GET /v1/users", "GET /v1/workspaces", "POST /v1/workspaces", "POST /v1/user/remember", "POST /v1/user/recall",
	"DELETE /v1/user/memory/{key}",
	"POST /v1/export/session", "GET /v1/export", "GET /v1/export/download",
	"GET /v1/admin/overview", "GET /v1/admin/workspaces", "GET /v1/admin/users", "GET /v1/admin/health",
	"GET /v1/admin/workspaces/{org_id}/activity", "POST /v1/admin/workspaces/{org_id}/plan",
	"POST /v1/admin/workspaces/{org_id}/users", "GET /v1/admin/me",
	"GET /", "GET /v1/health", "GET /v1/status", "GET /v1/openapi.json",
}

// laterRoutes are served beyond the contract, each added by an issue.
var laterRoutes = []string{
	// #18: ending sessions, disabling users.
	"POST /v1/auth/logout", "POST /v1/auth/logout-all", "POST /v1/auth/password",
	"POST /v1/admin/workspaces/{org_id}/users/{user_id}/disable",
	"POST /v1/admin/workspaces/{org_id}/users/{user_id}/enable",
	// #14: the MCP transport (Streamable HTTP).
	"POST /mcp",
	// #17: an online backup while serving.
	"POST /v1/admin/backup",
	// #28: the documents ingested files became.
	"GET /v1/documents",
	// Citations of stored papers, in BibTeX, RIS or CSL-JSON.
	"GET /v1/papers/{doi}/cite",
	// #42: the citation graph.
	"GET /v1/papers/{doi}/references", "GET /v1/papers/{doi}/citations", "GET /v1/papers/{doi}/related",
	"GET /v1/graph/gaps",
	// #39: a stored paper, to see its metadata filled in the background.
	"GET /v1/papers/{doi}",
	// #41: papers listed and documents removed; imports of a library.
	"GET /v1/papers", "DELETE /v1/documents/{id}",
	"POST /v1/imports", "GET /v1/imports", "GET /v1/imports/{id}",
}

// served walks the router: every route it serves as "METHOD path".
func served(t *testing.T, s *server) []string {
	t.Helper()
	var out []string
	err := s.router.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		tpl, err := route.GetPathTemplate()
		if err != nil {
			return err
		}
		methods, err := route.GetMethods()
		if err != nil {
			t.Errorf("route %s has no method", tpl)
			return nil
		}
		for _, m := range methods {
			out = append(out, m+" "+openAPIPath(tpl))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// testServer is a server over a fresh database.
func testServer(t testing.TB) *server {
	return newServer(testutil.OpenHosted(t, nil, nil), Config{})
}

func TestOpenAPIMatchesRouter(t *testing.T) {
	s := testServer(t)
	var doc struct {
		OpenAPI string                               `json:"openapi"`
		Paths   map[string]map[string]map[string]any `json:"paths"`
	}
	b, err := json.Marshal(openAPI(s.routes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var documented []string
	for p, ops := range doc.Paths {
		for m, o := range ops {
			documented = append(documented, strings.ToUpper(m)+" "+p)
			if o["summary"] == "" || o["responses"] == nil {
				t.Errorf("%s %s: no summary or responses", m, p)
			}
		}
	}
	sort.Strings(documented)
	routed := served(t, s)
	for _, r := range routed {
		if !slices.Contains(documented, r) {
			t.Errorf("served but not documented: %s", r)
		}
		if !slices.Contains(seedRoutes, r) && !slices.Contains(laterRoutes, r) {
			t.Errorf("served but neither in the contract nor added by an issue: %s", r)
		}
	}
	for _, d := range documented {
		if !slices.Contains(routed, d) {
			t.Errorf("documented but not served: %s", d)
		}
	}
	if len(seedRoutes) != 49 {
		t.Fatalf("the contract has 49 endpoints, the list %d", len(seedRoutes))
	}
	t.Logf("%d routes served: the contract's 49 and %d added by issues", len(routed), len(laterRoutes))
}

// TestRecallDocListsLibraryValues keeps the recall request's documented
// section types and scope signals equal to the library's lists, and its
// most DOIs equal to the library's bound, which struct tags cannot refer
// to.
func TestRecallDocListsLibraryValues(t *testing.T) {
	typ := reflect.TypeOf(api.RecallRequest{})
	for field, want := range map[string][]string{"SectionTypes": papermem.SectionTypes, "ScopeSignals": papermem.ScopeSignals} {
		f, _ := typ.FieldByName(field)
		doc := f.Tag.Get("doc")
		list := doc[strings.Index(doc, ": ")+2 : strings.Index(doc, ";")]
		if got := strings.Split(list, ", "); !slices.Equal(got, want) {
			t.Errorf("%s doc lists %q; the library has %q", field, got, want)
		}
	}
	f, _ := typ.FieldByName("DOIs")
	if doc, bound := f.Tag.Get("doc"), fmt.Sprintf("At most %d DOIs", papermem.MaxRecallDOIs); !strings.Contains(doc, bound) {
		t.Errorf("DOIs doc %q does not say %q", doc, bound)
	}
}
