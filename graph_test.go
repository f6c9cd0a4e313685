package papermem_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testutil"
)

// The tests' shared helpers (internal/testutil).
var (
	link    = testutil.Link
	claimID = testutil.ClaimID
)

// relatedOf returns the related edges around the sessions, keyed
// "a|b" by session ids, as the graph reports them.
func relatedOf(t *testing.T, w *papermem.Workspace, sessions ...string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, s := range sessions {
		g, err := w.Graph(ctx, s, 1)
		if err != nil {
			t.Fatalf("Graph(%s): %v", s, err)
		}
		for _, e := range g.Edges {
			if e.Type == papermem.EdgeRelated {
				out[e.Source[len("session:"):]+"|"+e.Target[len("session:"):]] = e.Weight
			}
		}
	}
	return out
}

func TestLinkSession(t *testing.T) {
	m := mustOpen(t)
	w := m.Workspace("lab-one")
	mustStore(t, w, vitaminD)
	claim := claimID(t, w, "does vitamin D reduce fracture risk")

	t.Run("OK", func(t *testing.T) {
		got := link(t, w, "s1", []string{"https://doi.org/10.1000/VitD", "doi:10.5555/Stub", "10.1000/vitd"}, claim, claim)
		want := &papermem.SessionLinks{SessionID: "s1", LinkedPapers: 2, LinkedClaims: 1}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("LinkSession (-want +got):\n%s", diff)
		}
		again := link(t, w, "s1", []string{"10.5555/stub", "10.1000/vitd"}, claim)
		if diff := cmp.Diff(want, again); diff != "" {
			t.Errorf("re-linking (-want +got):\n%s", diff)
		}
		g, err := w.Graph(ctx, "s1", 1)
		if err != nil {
			t.Fatal(err)
		}
		// The paper and the claim are both one hop away; the cites edge
		// between them is reported too.
		cstr := "claim:" + strconv.FormatInt(claim, 10)
		wantEdges := []papermem.GraphEdge{
			{Source: cstr, Target: "paper:10.1000/vitd", Type: papermem.EdgeCites, Weight: 1},
			{Source: "session:s1", Target: cstr, Type: papermem.EdgeUses, Weight: 1},
			{Source: "session:s1", Target: "paper:10.1000/vitd", Type: papermem.EdgeUses, Weight: 1},
			{Source: "session:s1", Target: "paper:10.5555/stub", Type: papermem.EdgeUses, Weight: 1},
		}
		if diff := cmp.Diff(wantEdges, g.Edges, cmpopts.SortSlices(func(a, b papermem.GraphEdge) bool {
			return a.Source+a.Target < b.Source+b.Target
		})); diff != "" {
			t.Errorf("edges after re-linking (-want +got):\n%s", diff)
		}
	})

	t.Run("Stub", func(t *testing.T) {
		ok, err := w.PaperExists(ctx, "10.5555/STUB")
		if err != nil || !ok {
			t.Fatalf("PaperExists(stub) = %v, %v", ok, err)
		}
		p, err := w.Paper(ctx, "10.5555/stub")
		if err != nil || p.Cached || p.Title != "" {
			t.Fatalf("stub = %+v, %v; want uncached and untitled", p, err)
		}
		if _, err := w.FetchPaper(ctx, "10.5555/stub"); papermem.ErrorCode(err) != papermem.ENOTFOUND {
			t.Errorf("FetchPaper(stub): err = %v, want ENOTFOUND", err)
		}
		mustStore(t, w, papermem.PaperInput{DOI: "10.5555/stub", Title: "Filled in later", Text: "Abstract\nThe stub now has text."})
		p, err = w.Paper(ctx, "10.5555/stub")
		if err != nil || !p.Cached || p.Title != "Filled in later" {
			t.Fatalf("stored stub = %+v, %v", p, err)
		}
		g, err := w.Graph(ctx, "s1", 1)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(g.Nodes, func(n papermem.GraphNode) bool { return n.Label == "Filled in later" }) {
			t.Errorf("graph nodes %+v lack the stored stub's title", g.Nodes)
		}
	})

	t.Run("ErrInvalid", func(t *testing.T) {
		mem, err := w.Remember(ctx, "ada", papermem.NoteInput{Text: "Ada prefers short answers."})
		if err != nil {
			t.Fatal(err)
		}
		other := m.Workspace("lab-two")
		mustStore(t, other, papermem.PaperInput{DOI: "10.2000/other", Title: "Other", Text: "Abstract\nAspirin reduced headaches by 40% in a randomised trial."})
		foreign := claimID(t, other, "aspirin headaches")
		for name, l := range map[string]papermem.SessionLink{
			"NoSession":    {Papers: []string{"10.1000/vitd"}},
			"BadSession":   {SessionID: "has space", Papers: []string{"10.1000/vitd"}},
			"LongSession":  {SessionID: strings.Repeat("a", 200)},
			"BadDOI":       {SessionID: "s9", Papers: []string{"not a doi"}},
			"UnknownClaim": {SessionID: "s9", Papers: []string{"10.1000/vitd"}, Claims: []int64{claim, 987654321}},
			"MemoryNode":   {SessionID: "s9", Claims: []int64{mem.NodeID}},
			"TooMany":      {SessionID: "s9", Papers: slices.Repeat([]string{"10.1/x"}, papermem.MaxSessionLinks+1)},
		} {
			t.Run(name, func(t *testing.T) {
				if _, err := w.LinkSession(ctx, l); papermem.ErrorCode(err) != papermem.EINVALID {
					t.Fatalf("err = %v, want EINVALID", err)
				}
			})
		}
		// Nothing of the refused calls was written.
		if _, err := w.Graph(ctx, "s9", 1); papermem.ErrorCode(err) != papermem.ENOTFOUND {
			t.Errorf("session of a refused link exists: err = %v", err)
		}
		// Node ids are numbers within a workspace: another workspace's id
		// names this workspace's node of that number, if any, never the
		// other's node.
		_, err = w.LinkSession(ctx, papermem.SessionLink{SessionID: "s-foreign", Claims: []int64{foreign}})
		switch papermem.ErrorCode(err) {
		case papermem.EINVALID:
		case "":
			g, err := w.Graph(ctx, "s-foreign", 1)
			if err != nil || len(g.Nodes) != 2 || g.Nodes[1].NodeID != foreign || strings.Contains(g.Nodes[1].Label, "Aspirin") {
				t.Errorf("the graph of a session linked to claim %d: %+v, %v", foreign, g, err)
			}
		default:
			t.Errorf("link claim %d of another workspace: %v", foreign, err)
		}
	})
}

func TestMaterializeJaccard(t *testing.T) {
	w := mustOpen(t).Workspace("lab-one")
	set := func(papers string) []string {
		var out []string
		for _, c := range papers {
			out = append(out, "10.1000/"+string(c))
		}
		return out
	}
	link(t, w, "s1", set("ABCD"))
	link(t, w, "s2", set("ABCE"))
	link(t, w, "s3", set("AF"))
	link(t, w, "s4", set("G"))
	link(t, w, "s5", set("ABCDEFGHIJ"))
	all := []string{"s1", "s2", "s3", "s4", "s5"}

	res, err := w.Materialize(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	// |s1∩s2|=3, |s1∪s2|=5; s3 shares A with s1 and s2 (1/5 = the
	// default threshold, kept); s5 holds s1 and s2 (4/10) and s3 (2/10);
	// s4–s5 is 1/10 and s4 shares nothing else.
	want := map[string]float64{"s1|s2": 0.6, "s1|s3": 0.2, "s2|s3": 0.2, "s1|s5": 0.4, "s2|s5": 0.4, "s3|s5": 0.2}
	if diff := cmp.Diff(want, relatedOf(t, w, all...), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("related edges (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&papermem.MaterializeResult{Created: 6, Total: 6}, res); diff != "" {
		t.Errorf("first run (-want +got):\n%s", diff)
	}

	t.Run("Idempotent", func(t *testing.T) {
		res, err := w.Materialize(ctx, 0.2)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(&papermem.MaterializeResult{Total: 6}, res); diff != "" {
			t.Errorf("second run (-want +got):\n%s", diff)
		}
	})

	t.Run("RemovedAndReweighted", func(t *testing.T) {
		link(t, w, "s3", set("KLM")) // s3 = AFKLM: 1/8 with s1, s2; 2/13 with s5
		link(t, w, "s2", set("D"))   // s2 = ABCDE: 4/5 with s1, 5/10 with s5
		res, err := w.Materialize(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(&papermem.MaterializeResult{Updated: 2, Removed: 3, Total: 3}, res); diff != "" {
			t.Errorf("after new links (-want +got):\n%s", diff)
		}
		want := map[string]float64{"s1|s2": 0.8, "s1|s5": 0.4, "s2|s5": 0.5}
		if diff := cmp.Diff(want, relatedOf(t, w, all...), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
			t.Errorf("related edges (-want +got):\n%s", diff)
		}
	})

	t.Run("HigherThreshold", func(t *testing.T) {
		res, err := w.Materialize(ctx, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		if res.Removed != 1 || res.Total != 2 || res.Created != 0 {
			t.Errorf("threshold 0.5: %+v, want s1|s5 removed", res)
		}
	})

	t.Run("ErrInvalid", func(t *testing.T) {
		for _, th := range []float64{-0.1, 1.5, math.NaN(), math.Inf(1)} {
			if _, err := w.Materialize(ctx, th); papermem.ErrorCode(err) != papermem.EINVALID {
				t.Errorf("Materialize(%v): err = %v, want EINVALID", th, err)
			}
		}
	})
}

func TestGraphHops(t *testing.T) {
	w := mustOpen(t).Workspace("lab-one")
	mustStore(t, w, vitaminD)
	claim := claimID(t, w, "does vitamin D reduce fracture risk")
	cstr := "claim:" + strconv.FormatInt(claim, 10)
	// A chain: s1 – P1 – s2 – P2 – s3, and s1 uses a claim of vitaminD.
	link(t, w, "s1", []string{"10.1/p1"}, claim)
	link(t, w, "s2", []string{"10.1/p1", "10.1/p2"})
	link(t, w, "s3", []string{"10.1/p2"})

	ids := func(g *papermem.Subgraph) map[string]int {
		out := map[string]int{}
		for _, n := range g.Nodes {
			out[n.ID] = n.Hop
		}
		return out
	}
	for _, tc := range []struct {
		hops int
		want map[string]int
	}{
		{0, map[string]int{"session:s1": 0, "paper:10.1/p1": 1, cstr: 1}},
		{1, map[string]int{"session:s1": 0, "paper:10.1/p1": 1, cstr: 1}},
		{2, map[string]int{"session:s1": 0, "paper:10.1/p1": 1, cstr: 1, "session:s2": 2, "paper:10.1000/vitd": 2}},
		{3, map[string]int{"session:s1": 0, "paper:10.1/p1": 1, cstr: 1, "session:s2": 2, "paper:10.1000/vitd": 2, "paper:10.1/p2": 3}},
	} {
		t.Run(fmt.Sprintf("Hops%d", tc.hops), func(t *testing.T) {
			g, err := w.Graph(ctx, "s1", tc.hops)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, ids(g)); diff != "" {
				t.Errorf("nodes and hops (-want +got):\n%s", diff)
			}
			if g.Seed != "session:s1" || g.Truncated || g.Nodes[0].ID != "session:s1" {
				t.Errorf("seed %q, truncated %v, first node %q", g.Seed, g.Truncated, g.Nodes[0].ID)
			}
			// Every edge joins two nodes of the graph.
			in := ids(g)
			for _, e := range g.Edges {
				if _, ok := in[e.Source]; !ok {
					t.Errorf("edge %+v leaves the graph", e)
				} else if _, ok := in[e.Target]; !ok {
					t.Errorf("edge %+v leaves the graph", e)
				}
			}
		})
	}

	t.Run("Neighborhood", func(t *testing.T) {
		g, err := w.Neighborhood(ctx, "paper:10.1000/VitD", 1)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]int{"paper:10.1000/vitd": 0, cstr: 1}, ids(g)); diff != "" {
			t.Errorf("paper neighbourhood (-want +got):\n%s", diff)
		}
		n := g.Nodes[0]
		if n.Type != papermem.NodePaper || n.Label != vitaminD.Title || n.DOI != "10.1000/vitd" || n.Cached == nil || !*n.Cached {
			t.Errorf("paper node = %+v", n)
		}
		g, err = w.Neighborhood(ctx, cstr, 1)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]int{cstr: 0, "session:s1": 1, "paper:10.1000/vitd": 1}, ids(g)); diff != "" {
			t.Errorf("claim neighbourhood (-want +got):\n%s", diff)
		}
		c := g.Nodes[0]
		if c.Type != papermem.NodeClaim || c.NodeID != claim || c.NodeLabel != papermem.LabelClaim || c.DOI != "10.1000/vitd" || c.Label == "" {
			t.Errorf("claim node = %+v", c)
		}
		g, err = w.Neighborhood(ctx, "paper:10.1/p2", 2)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]int{"paper:10.1/p2": 0, "session:s2": 1, "session:s3": 1, "paper:10.1/p1": 2}, ids(g)); diff != "" {
			t.Errorf("2-hop paper neighbourhood (-want +got):\n%s", diff)
		}
	})

	t.Run("Errors", func(t *testing.T) {
		for _, tc := range []struct {
			node string
			hops int
			code string
		}{
			{"session:s1", 4, papermem.EINVALID},
			{"session:s1", -1, papermem.EINVALID},
			{"s1", 1, papermem.EINVALID},
			{"user:s1", 1, papermem.EINVALID},
			{"paper:not-a-doi", 1, papermem.EINVALID},
			{"claim:abc", 1, papermem.EINVALID},
			{"session:nope", 1, papermem.ENOTFOUND},
			{"paper:10.9/unknown", 1, papermem.ENOTFOUND},
			{"claim:987654321", 1, papermem.ENOTFOUND},
		} {
			if _, err := w.Neighborhood(ctx, tc.node, tc.hops); papermem.ErrorCode(err) != tc.code {
				t.Errorf("Neighborhood(%q, %d): err = %v, want %s", tc.node, tc.hops, err, tc.code)
			}
		}
		if _, err := w.Graph(ctx, "", 1); papermem.ErrorCode(err) != papermem.EINVALID {
			t.Errorf("Graph(\"\"): err = %v, want EINVALID", err)
		}
		if _, err := w.Graph(ctx, "nope", 1); papermem.ErrorCode(err) != papermem.ENOTFOUND {
			t.Errorf("Graph(nope): err = %v, want ENOTFOUND", err)
		}
	})
}

func TestGraphTruncated(t *testing.T) {
	w := mustOpen(t).Workspace("lab-one")
	papers := make([]string, 700)
	for i := range papers {
		papers[i] = fmt.Sprintf("10.1/p%03d", i)
	}
	link(t, w, "big", papers)
	g, err := w.Graph(ctx, "big", 1)
	if err != nil {
		t.Fatal(err)
	}
	if !g.Truncated || len(g.Nodes) != papermem.MaxGraphNodes || len(g.Edges) != papermem.MaxGraphNodes-1 {
		t.Errorf("truncated = %v with %d nodes and %d edges; want true, %d, %d",
			g.Truncated, len(g.Nodes), len(g.Edges), papermem.MaxGraphNodes, papermem.MaxGraphNodes-1)
	}
	small, err := w.Neighborhood(ctx, "paper:10.1/p000", 1)
	if err != nil || small.Truncated {
		t.Errorf("small graph: truncated = %v, err = %v", small.Truncated, err)
	}
}

func TestGraphTenancy(t *testing.T) {
	m := mustOpen(t)
	a, b := m.Workspace("lab-one"), m.Workspace("lab-two")
	link(t, a, "shared-id", []string{"10.1/x", "10.1/y"})
	link(t, a, "only-a", []string{"10.1/x", "10.1/y"})
	link(t, b, "shared-id", []string{"10.1/x", "10.1/z"})
	mustStore(t, a, vitaminD)
	claim := claimID(t, a, "does vitamin D reduce fracture risk")

	if res, err := b.Materialize(ctx, 0); err != nil || res.Created != 0 {
		t.Fatalf("Materialize in lab-two = %+v, %v; want no edge", res, err)
	}
	if res, err := a.Materialize(ctx, 0); err != nil || res.Created != 1 {
		t.Fatalf("Materialize in lab-one = %+v, %v; want 1 edge", res, err)
	}
	g, err := b.Graph(ctx, "shared-id", 3)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range g.Nodes {
		got = append(got, n.ID)
	}
	if diff := cmp.Diff([]string{"session:shared-id", "paper:10.1/x", "paper:10.1/z"}, got); diff != "" {
		t.Errorf("lab-two graph (-want +got):\n%s", diff)
	}
	for _, id := range []string{"session:only-a", "paper:10.1/y", "claim:" + strconv.FormatInt(claim, 10)} {
		if _, err := b.Neighborhood(ctx, id, 1); papermem.ErrorCode(err) != papermem.ENOTFOUND {
			t.Errorf("lab-two sees %s: err = %v", id, err)
		}
	}
}

func TestDeletePaperRemovesLinks(t *testing.T) {
	w := mustOpen(t).Workspace("lab-one")
	mustStore(t, w, vitaminD)
	claim := claimID(t, w, "does vitamin D reduce fracture risk")
	link(t, w, "s1", []string{vitaminD.DOI, "10.1/other"}, claim)
	link(t, w, "s2", []string{vitaminD.DOI})
	if err := w.DeletePaper(ctx, vitaminD.DOI); err != nil {
		t.Fatal(err)
	}
	g, err := w.Graph(ctx, "s1", 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []papermem.GraphEdge{{Source: "session:s1", Target: "paper:10.1/other", Type: papermem.EdgeUses, Weight: 1}}
	if diff := cmp.Diff(want, g.Edges); diff != "" {
		t.Errorf("edges after delete (-want +got):\n%s", diff)
	}
	if res, err := w.Materialize(ctx, 0); err != nil || res.Total != 0 {
		t.Errorf("Materialize after delete = %+v, %v; want no edge", res, err)
	}
	// The deleted paper's claim ids are gone for good.
	if _, err := w.LinkSession(ctx, papermem.SessionLink{SessionID: "s1", Claims: []int64{claim}}); papermem.ErrorCode(err) != papermem.EINVALID {
		t.Errorf("linking a deleted claim: err = %v, want EINVALID", err)
	}
}

func TestExportSession(t *testing.T) {
	m := mustOpen(t)
	w := m.Workspace("lab-one")
	mustStore(t, w, vitaminD)
	claim := claimID(t, w, "does vitamin D reduce fracture risk")

	rec := papermem.SessionRecord{
		SessionID: "run-1",
		UserID:    "ada",
		CreatedAt: "2025-03-01T10:00:00+01:00",
		Steps: []papermem.Step{
			{Agent: "planner", Tool: "recall", Args: map[string]any{"question": "vitamin D", "budget": 9007199254740993}, ResultRef: "spans/1"},
			{Agent: "writer", Tool: "draft", Args: []any{"a", true}, ResultRef: ""},
		},
		RecalledPapers: []string{"https://doi.org/10.1000/VITD", "10.7777/new"},
		RecalledClaims: []int64{claim, 987654321},
		Metadata:       map[string]any{"domain": "medicine", "score": 0.5},
	}
	got, err := w.ExportSession(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&papermem.Exported{Written: true, SessionID: "run-1"}, got); diff != "" {
		t.Errorf("ExportSession (-want +got):\n%s", diff)
	}

	t.Run("Stored", func(t *testing.T) {
		page, err := w.Exports(ctx, papermem.ExportQuery{SessionID: "run-1"})
		if err != nil {
			t.Fatal(err)
		}
		want := rec
		want.OrgID = "lab-one"
		want.CreatedAt = "2025-03-01T09:00:00.000Z"
		want.RecalledPapers = []string{"10.1000/vitd", "10.7777/new"}
		want.Steps = []papermem.Step{
			{Agent: "planner", Tool: "recall", Args: map[string]any{"question": "vitamin D", "budget": json.Number("9007199254740993")}, ResultRef: "spans/1"},
			{Agent: "writer", Tool: "draft", Args: []any{"a", true}},
		}
		want.Metadata = map[string]any{"domain": "medicine", "score": json.Number("0.5")}
		if diff := cmp.Diff(&papermem.ExportPage{Records: []papermem.SessionRecord{want}, Count: 1}, page); diff != "" {
			t.Errorf("Exports (-want +got):\n%s", diff)
		}
	})

	t.Run("Linked", func(t *testing.T) {
		g, err := w.Graph(ctx, "run-1", 1)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, n := range g.Nodes {
			ids = append(ids, n.ID)
		}
		want := []string{"session:run-1", "claim:" + strconv.FormatInt(claim, 10), "paper:10.1000/vitd", "paper:10.7777/new"}
		if diff := cmp.Diff(want, ids); diff != "" {
			t.Errorf("linked nodes (-want +got):\n%s", diff)
		}
		if g.Nodes[0].UserID != "ada" {
			t.Errorf("session owner = %q", g.Nodes[0].UserID)
		}
	})

	t.Run("Replaced", func(t *testing.T) {
		again := papermem.SessionRecord{SessionID: "run-1", UserID: "ada", Steps: []papermem.Step{{Agent: "a", Tool: "t"}}}
		if _, err := w.ExportSession(ctx, again); err != nil {
			t.Fatal(err)
		}
		page, err := w.Exports(ctx, papermem.ExportQuery{SessionID: "run-1"})
		if err != nil {
			t.Fatal(err)
		}
		if page.Count != 1 || len(page.Records[0].Steps) != 1 || page.Records[0].CreatedAt != "2025-03-01T09:00:00.000Z" {
			t.Errorf("re-exported = %+v; want one record, new steps, first created_at", page)
		}
	})

	t.Run("GeneratedID", func(t *testing.T) {
		got, err := w.ExportSession(ctx, papermem.SessionRecord{CreatedAt: "2025-03-01"})
		if err != nil || !papermem.ValidSessionID(got.SessionID) {
			t.Fatalf("ExportSession without id = %+v, %v", got, err)
		}
		page, err := w.Exports(ctx, papermem.ExportQuery{SessionID: got.SessionID})
		if err != nil || page.Count != 1 || page.Records[0].Steps == nil || page.Records[0].Metadata == nil {
			t.Fatalf("Exports(generated) = %+v, %v", page, err)
		}
	})

	t.Run("ErrInvalid", func(t *testing.T) {
		for name, r := range map[string]papermem.SessionRecord{
			"BadSession": {SessionID: "a b"},
			"BadDOI":     {SessionID: "x", RecalledPapers: []string{"nope"}},
			"BadArgs":    {SessionID: "x", Steps: []papermem.Step{{Args: func() {}}}},
			"BadMeta":    {SessionID: "x", Metadata: map[string]any{"c": make(chan int)}},
			"BadTime":    {SessionID: "x", CreatedAt: "yesterday"},
		} {
			if _, err := w.ExportSession(ctx, r); papermem.ErrorCode(err) != papermem.EINVALID {
				t.Errorf("%s: err = %v, want EINVALID", name, err)
			}
		}
		if page, _ := w.Exports(ctx, papermem.ExportQuery{SessionID: "x"}); page.Count != 0 {
			t.Errorf("a refused export was stored: %+v", page)
		}
	})

	t.Run("OtherWorkspace", func(t *testing.T) {
		page, err := m.Workspace("lab-two").Exports(ctx, papermem.ExportQuery{})
		if err != nil || page.Count != 0 {
			t.Errorf("lab-two exports = %+v, %v", page, err)
		}
	})
}

func TestExportsPages(t *testing.T) {
	w := mustOpen(t).Workspace("lab-one")
	base := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	// Seven records a day apart; two share a time.
	for i := range 7 {
		at := base.Add(time.Duration(i) * 24 * time.Hour)
		if i == 6 {
			at = base.Add(5 * 24 * time.Hour)
		}
		if _, err := w.ExportSession(ctx, papermem.SessionRecord{SessionID: fmt.Sprintf("s%d", i), CreatedAt: at.Format(time.RFC3339)}); err != nil {
			t.Fatal(err)
		}
	}
	sessions := func(rs []papermem.SessionRecord) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.SessionID)
		}
		return out
	}

	t.Run("Cursor", func(t *testing.T) {
		var got [][]string
		q := papermem.ExportQuery{Limit: 3}
		for {
			page, err := w.Exports(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, sessions(page.Records))
			if page.NextCursor == "" {
				break
			}
			q.Cursor = page.NextCursor
		}
		want := [][]string{{"s6", "s5", "s4"}, {"s3", "s2", "s1"}, {"s0"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("pages (-want +got):\n%s", diff)
		}
	})

	t.Run("Range", func(t *testing.T) {
		page, err := w.Exports(ctx, papermem.ExportQuery{Since: base.Add(24 * time.Hour), Until: base.Add(3 * 24 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"s3", "s2", "s1"}, sessions(page.Records)); diff != "" {
			t.Errorf("since/until, both inclusive (-want +got):\n%s", diff)
		}
	})

	t.Run("Stream", func(t *testing.T) {
		var got []string
		err := w.StreamExports(ctx, papermem.ExportQuery{Since: base.Add(24 * time.Hour)}, func(r *papermem.SessionRecord) error {
			got = append(got, r.SessionID)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"s6", "s5", "s4", "s3", "s2", "s1"}, got); diff != "" {
			t.Errorf("stream (-want +got):\n%s", diff)
		}
		stop := fmt.Errorf("client went away")
		n := 0
		err = w.StreamExports(ctx, papermem.ExportQuery{}, func(*papermem.SessionRecord) error {
			n++
			return stop
		})
		if err != stop || n != 1 {
			t.Errorf("stream stopped by fn: err = %v after %d records", err, n)
		}
		n = 0
		if err := w.StreamExports(ctx, papermem.ExportQuery{Limit: 2}, func(*papermem.SessionRecord) error { n++; return nil }); err != nil || n != 2 {
			t.Errorf("stream with limit 2: %d records, err = %v", n, err)
		}
	})

	t.Run("ErrInvalid", func(t *testing.T) {
		for name, q := range map[string]papermem.ExportQuery{
			"SinceAfterUntil": {Since: base.Add(time.Hour), Until: base},
			"Limit":           {Limit: papermem.MaxExportLimit + 1},
			"NegativeLimit":   {Limit: -1},
			"Cursor":          {Cursor: "garbage!"},
			"ForgedCursor":    {Cursor: "bm90LWEtdGltZXwx"},
		} {
			if _, err := w.Exports(ctx, q); papermem.ErrorCode(err) != papermem.EINVALID {
				t.Errorf("%s: err = %v, want EINVALID", name, err)
			}
		}
	})
}

// TestUsersSessionActivity checks each user's session activity: sessions
// owned, their domains and times. (Package hosted merges it into the
// listing of a workspace's accounts.)
func TestUsersSessionActivity(t *testing.T) {
	m := testutil.Open(t, nil)
	u := struct{ UserID string }{"usr_ada"} // user ids are free strings to the library
	w := m.Workspace("lab-one")
	mustStore(t, w, vitaminD) // domain medicine
	if _, err := w.Remember(ctx, u.UserID, papermem.NoteInput{Text: "note", Domain: "biology"}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.LinkSession(ctx, papermem.SessionLink{SessionID: "s1", UserID: u.UserID, Papers: []string{vitaminD.DOI}}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ExportSession(ctx, papermem.SessionRecord{SessionID: "s2", UserID: u.UserID,
		Metadata: map[string]any{"domain": "physics"}}); err != nil {
		t.Fatal(err)
	}
	// Metadata holding a NUL character (stored as the JSON escape \u0000,
	// which PostgreSQL's JSON types cannot read) is left out, and breaks
	// nothing.
	if _, err := w.ExportSession(ctx, papermem.SessionRecord{SessionID: "s4", UserID: u.UserID,
		Metadata: map[string]any{"domain": "chemistry", "note": "a\x00b"}}); err != nil {
		t.Fatal(err)
	}
	// A session of nobody and one of another workspace change nothing.
	link(t, w, "s3", []string{"10.1/x"})
	if _, err := m.Workspace("lab-two").LinkSession(ctx, papermem.SessionLink{SessionID: "s1", UserID: u.UserID}); err != nil {
		t.Fatal(err)
	}

	acts, err := w.SessionActivities(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a := acts[u.UserID]
	if len(acts) != 1 || a == nil || a.Sessions != 3 || !cmp.Equal(a.Domains, []string{"medicine", "physics"}) || a.FirstSeen == "" || a.LastSeen < a.FirstSeen {
		t.Fatalf("SessionActivities = %v (%+v)", acts, a)
	}
}

// BenchmarkMaterialize relates 10,000 sessions of 20 papers each. Each
// session follows one of 400 topics: 16 papers from its topic's 60 and 4
// from a global pool of 20,000 with Zipf popularity, so a few papers are
// shared by thousands of sessions, as classics are. The timed loop is the
// steady state (links unchanged, no edge created); the first run, which
// creates every edge, is reported as first-run-ms.
func BenchmarkMaterialize(b *testing.B) {
	w := testutil.Open(b, nil).Workspace("bench")
	r := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(r, 1.2, 1, 19999)
	for s := range 10000 {
		topic := r.IntN(400)
		set := map[string]bool{}
		for len(set) < 16 {
			set[fmt.Sprintf("10.1/t%d-%d", topic, r.IntN(60))] = true
		}
		for len(set) < 20 {
			set[fmt.Sprintf("10.1/g%d", zipf.Uint64())] = true
		}
		link(b, w, fmt.Sprintf("s%05d", s), slices.Collect(maps.Keys(set)))
	}
	start := time.Now()
	first, err := w.Materialize(ctx, 0)
	if err != nil {
		b.Fatal(err)
	}
	firstRun := time.Since(start)
	for b.Loop() {
		res, err := w.Materialize(ctx, 0)
		if err != nil || res.Created != 0 {
			b.Fatalf("steady state = %+v, %v", res, err)
		}
	}
	b.ReportMetric(float64(firstRun.Milliseconds()), "first-run-ms")
	b.ReportMetric(float64(first.Created), "edges")
}

// FuzzNeighborhood feeds arbitrary node ids to the graph search: it must
// answer a graph, EINVALID or ENOTFOUND, never panic or fail otherwise.
func FuzzNeighborhood(f *testing.F) {
	w := mustOpen(f).Workspace("lab-one")
	link(f, w, "s1", []string{"10.1/a", "10.1/b"})
	link(f, w, "s2", []string{"10.1/a"})
	for _, seed := range []string{"session:s1", "paper:10.1/a", "paper:10.1%2Fb", "claim:1", "claim:-1", "session:", ":", "paper:local:x", "claim:99999999999999999999"} {
		f.Add(seed, 1)
	}
	f.Fuzz(func(t *testing.T, id string, hops int) {
		g, err := w.Neighborhood(ctx, id, hops)
		switch code := papermem.ErrorCode(err); code {
		case "":
			if len(g.Nodes) == 0 || g.Nodes[0].ID != g.Seed {
				t.Fatalf("Neighborhood(%q) = %+v", id, g)
			}
		case papermem.EINVALID, papermem.ENOTFOUND:
		default:
			t.Fatalf("Neighborhood(%q, %d): %v", id, hops, err)
		}
	})
}

// FuzzExportsCursor feeds arbitrary cursors to Exports: a cursor is
// accepted or refused with EINVALID, never anything else.
func FuzzExportsCursor(f *testing.F) {
	w := mustOpen(f).Workspace("lab-one")
	for i := range 3 {
		if _, err := w.ExportSession(ctx, papermem.SessionRecord{SessionID: fmt.Sprintf("s%d", i)}); err != nil {
			f.Fatal(err)
		}
	}
	page, err := w.Exports(ctx, papermem.ExportQuery{Limit: 1})
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{page.NextCursor, "", "x", "bm90LWEtdGltZXwx", "MjAyNS0wMS0wMVQwMDowMDowMC4wMDBafDE"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, cursor string) {
		page, err := w.Exports(ctx, papermem.ExportQuery{Cursor: cursor, Limit: 2})
		switch code := papermem.ErrorCode(err); code {
		case "":
			if page.Count != len(page.Records) || page.Count > 2 {
				t.Fatalf("page %+v", page)
			}
		case papermem.EINVALID:
		default:
			t.Fatalf("Exports(cursor %q): %v", cursor, err)
		}
	})
}

func TestRecentSessions(t *testing.T) {
	m := mustOpen(t)
	w := m.Workspace("lab-a")
	for _, s := range []string{"s-one", "s-two", "s-three"} {
		if _, err := w.LinkSession(ctx, papermem.SessionLink{SessionID: s, Papers: []string{"10.1000/a"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.Workspace("lab-b").LinkSession(ctx, papermem.SessionLink{SessionID: "s-other", Papers: []string{"10.1000/a"}}); err != nil {
		t.Fatal(err)
	}
	t.Run("OK", func(t *testing.T) {
		ids, err := w.RecentSessions(ctx, 2)
		if err != nil || len(ids) != 2 || ids[0] != "s-three" {
			t.Fatalf("%v, %v", ids, err)
		}
	})
	t.Run("ErrLimit", func(t *testing.T) {
		if _, err := w.RecentSessions(ctx, -1); papermem.ErrorCode(err) != papermem.EINVALID {
			t.Fatalf("err %v", err)
		}
	})
}

// TestMaterializeConcurrent materialises one workspace through two handles
// at once, as two servers over one PostgreSQL database would: each run
// succeeds, and between them they create each edge once.
func TestMaterializeConcurrent(t *testing.T) {
	path := testdb.Path(t)
	var ws []*papermem.Workspace
	for range 2 {
		m, err := papermem.Open(ctx, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		ws = append(ws, m.Workspace("lab-one"))
	}
	for i := range 12 {
		link(t, ws[0], fmt.Sprintf("s%d", i), []string{"10.1000/shared", fmt.Sprintf("10.1000/own%d", i%3)})
	}
	results := make([]*papermem.MaterializeResult, len(ws))
	var wg sync.WaitGroup
	for i, w := range ws {
		wg.Go(func() {
			var err error
			if results[i], err = w.Materialize(ctx, 0); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if created, total := results[0].Created+results[1].Created, results[0].Total; created != total || total != 66 {
		t.Errorf("created %d edges between the two runs, total %d; want 66 (every pair of 12 sessions) created once", created, total)
	}
}
