package httpapi_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/httpapi"
)

// claimOf returns the node id of the first claim recall finds.
func claimOf(t *testing.T, e *env, hdr []string, question string) int64 {
	t.Helper()
	r := e.do("POST", "/v1/recall", map[string]any{"question": question}, hdr...)
	want(t, r, http.StatusOK, "")
	var res papermem.RecallResult
	r.json(t, &res)
	if len(res.Spans) == 0 {
		t.Fatalf("no claim for %q", question)
	}
	return res.Spans[0].NodeID
}

// nodeHops maps a subgraph's node ids to their hops.
func nodeHops(g papermem.Subgraph) map[string]int {
	out := map[string]int{}
	for _, n := range g.Nodes {
		out[n.ID] = n.Hop
	}
	return out
}

func TestSessionsAndGraph(t *testing.T) {
	e := newEnv(t, httpapi.Config{}, nil)
	a := e.signup("ada@example.org", "lab-one")
	b := e.signup("bob@example.org", "lab-two")
	storePaper(t, e, a.auth(), "10.1000/abc.1")
	claim := claimOf(t, e, a.auth(), "Does sleep deprivation impair memory?")
	cid := "claim:" + strconv.FormatInt(claim, 10)

	t.Run("Link", func(t *testing.T) {
		body := map[string]any{"session_id": "s1", "papers": []string{"https://doi.org/10.1000/ABC.1", "10.5555/stub"},
			"claims": []int64{claim}, "extra": "ignored"}
		wantBody := papermem.SessionLinks{SessionID: "s1", LinkedPapers: 2, LinkedClaims: 1}
		for range 2 { // idempotent
			r := e.do("POST", "/v1/sessions/link", body, a.auth()...)
			want(t, r, http.StatusOK, "")
			var got papermem.SessionLinks
			r.json(t, &got)
			if diff := cmp.Diff(wantBody, got); diff != "" {
				t.Fatalf("link (-want +got):\n%s", diff)
			}
		}
		r := e.do("GET", "/v1/papers/10.5555/stub/exists", nil, a.auth()...)
		want(t, r, http.StatusOK, "")
		if string(r.body) != "{\"exists\":true}\n" {
			t.Errorf("stub exists: %s", r.body)
		}
		want(t, e.do("POST", "/v1/sessions/link", map[string]any{"session_id": "s2", "papers": []string{"10.1000/abc.1", "10.1/other"}}, a.auth()...), http.StatusOK, "")
		want(t, e.do("POST", "/v1/sessions/link", map[string]any{"session_id": "s3", "papers": []string{"10.9/x"}}, a.auth()...), http.StatusOK, "")
	})

	t.Run("ErrLink", func(t *testing.T) {
		for _, body := range []any{
			map[string]any{},
			map[string]any{"session_id": ""},
			map[string]any{"session_id": "has space"},
			map[string]any{"session_id": 7},
			map[string]any{"session_id": "s9", "papers": "10.1/x"},
			map[string]any{"session_id": "s9", "papers": []string{"not a doi"}},
			map[string]any{"session_id": "s9", "claims": []string{"one"}},
			map[string]any{"session_id": "s9", "claims": []int64{987654321}},
			`{"session_id": "s9"`,
			`[]`,
		} {
			want(t, e.do("POST", "/v1/sessions/link", body, a.auth()...), http.StatusBadRequest, "invalid_input")
		}
		want(t, e.do("POST", "/v1/sessions/link", map[string]any{"session_id": "s9"}), http.StatusUnauthorized, "unauthorized")
		want(t, e.do("GET", "/v1/graph?seed_session=s9", nil, a.auth()...), http.StatusNotFound, "not_found")
	})

	t.Run("Materialize", func(t *testing.T) {
		// s1 = {abc.1, stub}, s2 = {abc.1, other}: Jaccard 1/3.
		for _, tc := range []struct {
			body any
			want papermem.MaterializeResult
		}{
			{nil, papermem.MaterializeResult{Created: 1, Total: 1}},
			{map[string]any{}, papermem.MaterializeResult{Total: 1}},
			{map[string]any{"threshold": nil}, papermem.MaterializeResult{Total: 1}},
			{map[string]any{"threshold": 0.5}, papermem.MaterializeResult{Removed: 1}},
			{map[string]any{"threshold": 0.3}, papermem.MaterializeResult{Created: 1, Total: 1}},
		} {
			r := e.do("POST", "/v1/graph/materialize", tc.body, a.auth()...)
			want(t, r, http.StatusOK, "")
			var got papermem.MaterializeResult
			r.json(t, &got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("materialize %v (-want +got):\n%s", tc.body, diff)
			}
		}
		for _, body := range []any{map[string]any{"threshold": 0}, map[string]any{"threshold": -1}, map[string]any{"threshold": 1.5},
			map[string]any{"threshold": "0.2"}, `{"threshold":`} {
			want(t, e.do("POST", "/v1/graph/materialize", body, a.auth()...), http.StatusBadRequest, "invalid_input")
		}
		r := e.do("POST", "/v1/graph/materialize", nil, b.auth()...)
		want(t, r, http.StatusOK, "")
		if string(r.body) != `{"related_edges_created":0,"related_edges_updated":0,"related_edges_removed":0,"related_edges":0}`+"\n" {
			t.Errorf("lab-two materialize: %s", r.body)
		}
	})

	t.Run("Graph", func(t *testing.T) {
		r := e.do("GET", "/v1/graph?seed_session=s1&hops=2", nil, a.auth()...)
		want(t, r, http.StatusOK, "")
		var g papermem.Subgraph
		r.json(t, &g)
		wantNodes := map[string]int{"session:s1": 0, "paper:10.1000/abc.1": 1, "paper:10.5555/stub": 1, cid: 1, "session:s2": 1, "paper:10.1/other": 2}
		if diff := cmp.Diff(wantNodes, nodeHops(g)); diff != "" {
			t.Errorf("nodes (-want +got):\n%s", diff)
		}
		wantEdges := []papermem.GraphEdge{
			{Source: cid, Target: "paper:10.1000/abc.1", Type: "cites", Weight: 1},
			{Source: "session:s1", Target: cid, Type: "uses", Weight: 1},
			{Source: "session:s1", Target: "paper:10.1000/abc.1", Type: "uses", Weight: 1},
			{Source: "session:s1", Target: "paper:10.5555/stub", Type: "uses", Weight: 1},
			{Source: "session:s1", Target: "session:s2", Type: "related", Weight: 1.0 / 3},
			{Source: "session:s2", Target: "paper:10.1/other", Type: "uses", Weight: 1},
			{Source: "session:s2", Target: "paper:10.1000/abc.1", Type: "uses", Weight: 1},
		}
		if diff := cmp.Diff(wantEdges, g.Edges); diff != "" {
			t.Errorf("edges (-want +got):\n%s", diff)
		}
		if g.Seed != "session:s1" || g.Hops != 2 || g.Truncated {
			t.Errorf("seed %q hops %d truncated %v", g.Seed, g.Hops, g.Truncated)
		}
		var raw struct {
			Nodes []map[string]any `json:"nodes"`
		}
		r.json(t, &raw)
		if s := raw.Nodes[0]; s["type"] != "session" || s["label"] != "s1" || s["user_id"] != a.userID {
			t.Errorf("session node %v", s)
		}

		r = e.do("GET", "/v1/graph?seed_session=s1", nil, a.auth()...)
		want(t, r, http.StatusOK, "")
		r.json(t, &g)
		if g.Hops != 1 || len(g.Nodes) != 5 {
			t.Errorf("default hops: %s", r.body)
		}
	})

	t.Run("ErrGraph", func(t *testing.T) {
		for _, q := range []string{"", "?hops=1", "?seed_session=", "?seed_session=s1&hops=4", "?seed_session=s1&hops=0",
			"?seed_session=s1&hops=-1", "?seed_session=s1&hops=two"} {
			want(t, e.do("GET", "/v1/graph"+q, nil, a.auth()...), http.StatusBadRequest, "invalid_input")
		}
		want(t, e.do("GET", "/v1/graph?seed_session=nope", nil, a.auth()...), http.StatusNotFound, "not_found")
		want(t, e.do("GET", "/v1/graph?seed_session=s1", nil), http.StatusUnauthorized, "unauthorized")
	})

	t.Run("Neighborhood", func(t *testing.T) {
		paperHood := map[string]int{"paper:10.1000/abc.1": 0, "session:s1": 1, "session:s2": 1, cid: 1}
		for _, path := range []string{
			"/v1/graph/neighborhood/paper:10.1000/abc.1",
			"/v1/graph/neighborhood/paper:10.1000%2Fabc.1?hops=1",
			"/v1/graph/neighborhood/paper%3A10.1000%2FABC.1",
		} {
			r := e.do("GET", path, nil, a.auth()...)
			want(t, r, http.StatusOK, "")
			var g papermem.Subgraph
			r.json(t, &g)
			if diff := cmp.Diff(paperHood, nodeHops(g)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", path, diff)
			}
		}
		r := e.do("GET", "/v1/graph/neighborhood/"+cid+"?hops=1", nil, a.auth()...)
		want(t, r, http.StatusOK, "")
		var g papermem.Subgraph
		r.json(t, &g)
		if diff := cmp.Diff(map[string]int{cid: 0, "session:s1": 1, "paper:10.1000/abc.1": 1}, nodeHops(g)); diff != "" {
			t.Errorf("claim neighbourhood (-want +got):\n%s", diff)
		}
		if n := g.Nodes[0]; n.Type != "claim" || n.NodeID != claim || n.DOI != "10.1000/abc.1" || n.Label == "" {
			t.Errorf("claim node %+v", n)
		}
		r = e.do("GET", "/v1/graph/neighborhood/session:s3", nil, a.auth()...)
		want(t, r, http.StatusOK, "")
		r.json(t, &g)
		if diff := cmp.Diff(map[string]int{"session:s3": 0, "paper:10.9/x": 1}, nodeHops(g)); diff != "" {
			t.Errorf("session neighbourhood (-want +got):\n%s", diff)
		}

		for path, code := range map[string]string{
			"/v1/graph/neighborhood/s1":                "invalid_input",
			"/v1/graph/neighborhood/paper:nodoi":       "invalid_input",
			"/v1/graph/neighborhood/claim:x":           "invalid_input",
			"/v1/graph/neighborhood/session:s1?hops=9": "invalid_input",
			"/v1/graph/neighborhood/session:nope":      "not_found",
			"/v1/graph/neighborhood/paper:10.9/none":   "not_found",
			"/v1/graph/neighborhood/claim:987654321":   "not_found",
		} {
			status := http.StatusBadRequest
			if code == "not_found" {
				status = http.StatusNotFound
			}
			want(t, e.do("GET", path, nil, a.auth()...), status, code)
		}
	})

	t.Run("Tenancy", func(t *testing.T) {
		for _, path := range []string{
			"/v1/graph?seed_session=s1",
			"/v1/graph/neighborhood/session:s1",
			"/v1/graph/neighborhood/paper:10.1000/abc.1",
			"/v1/graph/neighborhood/" + cid,
		} {
			want(t, e.do("GET", path, nil, b.auth()...), http.StatusNotFound, "not_found")
		}
		// The same session id in lab-two is another session.
		want(t, e.do("POST", "/v1/sessions/link", map[string]any{"session_id": "s1", "papers": []string{"10.1000/abc.1"}}, b.auth()...), http.StatusOK, "")
		r := e.do("GET", "/v1/graph?seed_session=s1&hops=3", nil, b.auth()...)
		want(t, r, http.StatusOK, "")
		var g papermem.Subgraph
		r.json(t, &g)
		if diff := cmp.Diff(map[string]int{"session:s1": 0, "paper:10.1000/abc.1": 1}, nodeHops(g)); diff != "" {
			t.Errorf("lab-two graph (-want +got):\n%s", diff)
		}
		// Claims of lab-one cannot be linked from lab-two.
		want(t, e.do("POST", "/v1/sessions/link", map[string]any{"session_id": "s1", "claims": []int64{claim}}, b.auth()...), http.StatusBadRequest, "invalid_input")
	})

	t.Run("UserActivity", func(t *testing.T) {
		r := e.do("GET", "/v1/users", nil, a.auth()...)
		want(t, r, http.StatusOK, "")
		var res struct {
			Users []struct {
				UserID   string `json:"user_id"`
				Sessions int    `json:"sessions"`
			} `json:"users"`
		}
		r.json(t, &res)
		if len(res.Users) != 1 || res.Users[0].UserID != a.userID || res.Users[0].Sessions != 3 {
			t.Errorf("users: %s", r.body)
		}
	})
}

func TestDeletePaperUnlinks(t *testing.T) {
	e := newEnv(t, httpapi.Config{}, nil)
	a := e.signup("ada@example.org", "lab-one")
	storePaper(t, e, a.auth(), "10.1000/abc.1")
	claim := claimOf(t, e, a.auth(), "Does sleep deprivation impair memory?")
	want(t, e.do("POST", "/v1/sessions/link", map[string]any{"session_id": "s1", "papers": []string{"10.1000/abc.1"}, "claims": []int64{claim}}, a.auth()...), http.StatusOK, "")
	want(t, e.do("DELETE", "/v1/papers/10.1000/abc.1", nil, a.auth()...), http.StatusOK, "")
	r := e.do("GET", "/v1/graph?seed_session=s1&hops=3", nil, a.auth()...)
	want(t, r, http.StatusOK, "")
	var g papermem.Subgraph
	r.json(t, &g)
	if len(g.Nodes) != 1 || len(g.Edges) != 0 {
		t.Errorf("graph after delete: %s", r.body)
	}
	want(t, e.do("GET", "/v1/graph/neighborhood/paper:10.1000/abc.1", nil, a.auth()...), http.StatusNotFound, "not_found")
}
