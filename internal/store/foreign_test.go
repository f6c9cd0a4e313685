package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/store"
	"github.com/papermem/papermem/internal/testdb"
)

// TestForeignIDs fills two workspaces with the same papers, analyses,
// notes and sessions through the library, then asks the store for one
// workspace's rows by the other workspace's row ids, and one user's by
// another user's: every read must come back empty and every delete must
// leave the rows it was handed. Row ids are unique across workspaces, so
// the library never makes these calls; a query that trusted the ids
// alone would still pass every test that goes through it.
func TestForeignIDs(t *testing.T) {
	ctx := context.Background()
	path := testdb.Path(t)
	m, err := papermem.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, org := range []string{"lab-a", "lab-b"} {
		fill(t, m.Workspace(org))
	}
	db, err := store.Open(ctx, path, store.SyncNormal)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q, e := db.Write, db.Engine
	ids := func(query string, args ...any) []int64 {
		t.Helper()
		rows, err := q.QueryContext(ctx, query, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			out = append(out, id)
		}
		if len(out) == 0 {
			t.Fatalf("no rows for %s %v", query, args)
		}
		return out
	}
	// lab-b's rows, and lab-a's notes of bob.
	papers := ids(`SELECT id FROM papers WHERE org_id = 'lab-b'`)
	sessions := ids(`SELECT id FROM sessions WHERE org_id = 'lab-b'`)
	claims := ids(`SELECT node_id FROM session_claims WHERE org_id = 'lab-b'`)
	analyses := ids(`SELECT id FROM analyses WHERE org_id = 'lab-b'`)
	memories := ids(`SELECT id FROM memories WHERE org_id = 'lab-b'`)
	bobNotes := ids(`SELECT id FROM memories WHERE org_id = 'lab-a' AND user_id = 'bob'`)
	bobNodes := ids(`SELECT id FROM nodes WHERE org_id = 'lab-a' AND user_id = 'bob' AND kind = 'memory'`)
	paperNodes := ids(`SELECT id FROM nodes WHERE org_id = 'lab-b' AND kind = 'paper'`)

	empty := func(name string, n int, err error) {
		t.Helper()
		if n != 0 || err != nil {
			t.Errorf("%s: %d rows, %v; want none", name, n, err)
		}
	}
	got, err := store.NodeIDsNotOfKind(ctx, q, e, "lab-a", "memory", paperNodes)
	empty("NodeIDsNotOfKind", len(got), err)
	s, err := store.SessionNeighbours(ctx, q, "lab-a", sessions)
	empty("SessionNeighbours", len(s.Papers)+len(s.Claims)+len(s.Related), err)
	p, err := store.PaperNeighbours(ctx, q, "lab-a", papers)
	empty("PaperNeighbours", len(p.Sessions)+len(p.Claims), err)
	c, err := store.ClaimNeighbours(ctx, q, e, "lab-a", claims)
	empty("ClaimNeighbours", len(c.Sessions)+len(c.Papers), err)
	gs, err := store.GraphSessions(ctx, q, "lab-a", sessions)
	empty("GraphSessions", len(gs), err)
	gp, err := store.GraphPapers(ctx, q, "lab-a", papers)
	empty("GraphPapers", len(gp), err)
	gc, err := store.GraphClaims(ctx, q, e, "lab-a", claims)
	empty("GraphClaims", len(gc), err)
	ps, err := store.PapersByID(ctx, q, "lab-a", papers)
	empty("PapersByID", len(ps), err)
	ap, err := store.AnalysedPapers(ctx, q, "lab-a", analyses)
	empty("AnalysedPapers", len(ap), err)
	sn, err := store.NodesOfOwner(ctx, q, "lab-a", "paper", papers[0], "Claim", "Passage")
	empty("NodesOfOwner", len(sn), err)
	nb, err := store.MemoryNeighbours(ctx, q, e, "lab-a", "ada", bobNotes, 3)
	empty("MemoryNeighbours of bob's notes as ada", len(nb), err)
	nb, err = store.MemoryNeighbours(ctx, q, e, "lab-a", "ada", memories, 3)
	empty("MemoryNeighbours of lab-b's notes", len(nb), err)
	mn, err := store.MemoryNodes(ctx, q, e, "lab-a", "ada", bobNodes)
	empty("MemoryNodes of bob's notes as ada", len(mn), err)

	// Deletes in lab-a's name with lab-b's ids, and ada's with bob's.
	before := counts(t, q)
	for _, id := range papers {
		if err := store.DeletePaper(ctx, q, "lab-a", id); err != nil {
			t.Fatal(err)
		}
		if err := store.DeleteNodes(ctx, q, "lab-a", "paper", id); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range analyses {
		if err := store.DeleteAnalysis(ctx, q, "lab-a", id); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range memories {
		if err := store.DeleteMemory(ctx, q, "lab-a", id); err != nil {
			t.Fatal(err)
		}
	}
	// An export written in lab-a's name for lab-b's session row.
	exported := ids(`SELECT session_id FROM session_exports WHERE org_id = 'lab-b'`)
	if err := store.UpsertExport(ctx, q, "lab-a", exported[0], &store.Export{UserID: "mallory", Steps: "[]", RecalledPapers: "[]",
		RecalledClaims: "[]", Metadata: "{}", CreatedAt: "2026-03-02T10:00:00Z", UpdatedAt: "2026-03-02T10:00:00Z"}, ""); err != nil {
		t.Fatal(err)
	}
	exports, err := store.Exports(ctx, q, "lab-b", store.ExportFilter{}, 10)
	if err != nil || len(exports) != 1 || exports[0].UserID != "ada" {
		t.Errorf("lab-b's exports = %+v, %v; want ada's s1 unchanged", exports, err)
	}
	if after := counts(t, q); after != before {
		t.Errorf("rows before and after deletes with foreign ids:\n%s\n%s", before, after)
	}
}

// fill stores the same research history in w as in any other workspace.
func fill(t *testing.T, w *papermem.Workspace) {
	t.Helper()
	ctx := context.Background()
	for _, in := range []papermem.PaperInput{
		{DOI: "10.1/vitd", Title: "Vitamin D and fractures", Text: "# Vitamin D and fractures\n\n## Abstract\n\nVitamin D supplements did not reduce fracture risk in 25,871 adults over five years."},
		{DOI: "10.1/falls", Title: "Vitamin D and falls", Text: "Vitamin D supplements did not reduce falls in older adults (hazard ratio 0.98)."},
	} {
		if _, _, err := w.StorePaper(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.StoreAnalysis(ctx, papermem.Analysis{DOI: "10.1/vitd", Markdown: "# Verdict\nNo effect of vitamin D on fractures."}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []struct{ user, text string }{
		{"ada", "Ada prefers randomised trials of vitamin D."},
		{"ada", "Ada met the falls group on Monday."},
		{"bob", "Bob prefers cohort studies of vitamin D."},
		{"bob", "Bob reads falls trials on Fridays."},
	} {
		if _, err := w.Remember(ctx, n.user, papermem.MemoryInput{Text: n.text}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := w.Recall(ctx, papermem.RecallRequest{Question: "does vitamin D reduce fracture risk"})
	if err != nil || len(res.Spans) == 0 {
		t.Fatalf("recall = %+v, %v", res, err)
	}
	for _, sid := range []string{"s1", "s2"} {
		if _, err := w.LinkSession(ctx, papermem.SessionLink{SessionID: sid, Papers: []string{"10.1/vitd", "10.1/falls"}, Claims: []int64{res.Spans[0].NodeID}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Materialize(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ExportSession(ctx, papermem.SessionRecord{SessionID: "s1", UserID: "ada", CreatedAt: "2026-03-01T10:00:00Z",
		Steps: []papermem.Step{{Agent: "planner", Tool: "recall"}}}); err != nil {
		t.Fatal(err)
	}
}

// counts describes how many rows each table holds, by workspace.
func counts(t *testing.T, q store.Querier) string {
	t.Helper()
	var b strings.Builder
	for _, table := range []string{"papers", "analyses", "memories", "nodes"} {
		var a, other int
		err := q.QueryRowContext(context.Background(), `SELECT
			(SELECT count(*) FROM `+table+` WHERE org_id = 'lab-a'),
			(SELECT count(*) FROM `+table+` WHERE org_id = 'lab-b')`).Scan(&a, &other)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s: %d %d; ", table, a, other)
	}
	return b.String()
}
