package httpapi_test

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/httpapi"
)

// TestIDsOfANewWorkspace checks over HTTP that a workspace's ids are its
// own numbers: after another tenant stored five documents and a note, a
// new workspace's first upload is doc:1, its documents list doc:1, its
// note and spans are numbered from 1, and the graph and sessions take and
// show those numbers.
func TestIDsOfANewWorkspace(t *testing.T) {
	e := newEnv(t, httpapi.Config{}, nil)
	busy := e.signup("ada@example.org", "lab-busy")
	for i := range 5 {
		want(t, e.upload(busy.auth(), part{name: "file", filename: fmt.Sprintf("n%d.md", i),
			data: fmt.Appendf(nil, "# Notes %d\n\nThe pump in room %d failed twice in May.", i, i)}), http.StatusCreated, "")
	}
	want(t, e.do("POST", "/v1/user/remember", map[string]any{"text": "Ada drinks her coffee black."}, busy.auth()...), http.StatusOK, "")

	fresh := e.signup("bob@example.org", "lab-fresh")
	r := e.upload(fresh.auth(), part{name: "file", filename: "plan.md",
		data: []byte("# Plan\n\nVitamin D supplementation did not reduce fracture risk in adults over 70 (hazard ratio 0.98).")})
	want(t, r, http.StatusCreated, "")
	var rep papermem.IngestReport
	r.json(t, &rep)
	if rep.DocID != "doc:1" {
		t.Errorf("the first upload of a new workspace: %s, want doc:1", rep.DocID)
	}
	r = e.do("GET", "/v1/documents", nil, fresh.auth()...)
	want(t, r, http.StatusOK, "")
	var docs api.DocumentsResponse
	r.json(t, &docs)
	if len(docs.Documents) != 1 || docs.Documents[0].ID != "doc:1" {
		t.Errorf("documents: %+v", docs)
	}
	r = e.do("POST", "/v1/user/remember", map[string]any{"text": "Bob wants hazard ratios."}, fresh.auth()...)
	want(t, r, http.StatusOK, "")
	var note papermem.Remembered
	r.json(t, &note)
	last := int64(rep.NodesStored + 1)
	if note.NodeID != last {
		t.Errorf("the note's node_id %d, want %d (the workspace's %d nodes before it, then it)", note.NodeID, last, rep.NodesStored)
	}
	spans := recallSpans(t, e, fresh.auth(), "Does vitamin D prevent fractures?")
	if len(spans) == 0 {
		t.Fatal("no span")
	}
	for _, s := range spans {
		if s.NodeID < 1 || s.NodeID >= last {
			t.Errorf("span node_id %d outside the document's 1..%d", s.NodeID, last-1)
		}
	}
	claim := spans[0].NodeID
	want(t, e.do("POST", "/v1/sessions/link", map[string]any{"session_id": "s1", "claims": []int64{claim}}, fresh.auth()...), http.StatusOK, "")
	r = e.do("GET", "/v1/graph/neighborhood/claim:"+strconv.FormatInt(claim, 10), nil, fresh.auth()...)
	want(t, r, http.StatusOK, "")
	var g papermem.Subgraph
	r.json(t, &g)
	if g.Seed != "claim:"+strconv.FormatInt(claim, 10) || len(g.Nodes) != 2 || g.Nodes[0].NodeID != claim || g.Nodes[1].ID != "session:s1" {
		t.Errorf("the claim's neighbourhood: %+v", g)
	}
	want(t, e.do("POST", "/v1/sessions/link", map[string]any{"session_id": "s2", "claims": []int64{last + 1}}, fresh.auth()...),
		http.StatusBadRequest, "invalid_input")
}
