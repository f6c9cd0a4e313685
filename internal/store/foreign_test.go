package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/store"
	"github.com/papermem/papermem/internal/testdb"
)

// TestForeignIDs guards the store's queries against rows of another
// workspace that only their ids, or a join, could let in. Workspace lab-a
// goes through a research history alone in one database, and in another
// before lab-b goes through the same one (same DOIs, session ids and user
// names; other titles and domains). Then, in the shared database:
//   - every read of lab-a must answer as it does alone;
//   - lab-a's reads by lab-b's row ids, and ada's by bob's, find nothing,
//     and lab-a's writes and deletes by lab-b's ids leave every row;
//   - link rows written in one workspace's name that point at the
//     other's rows change none of the other's reads.
//
// Row ids are unique across workspaces, so the library never makes these
// calls: a query that trusted ids or joins alone passes every test that
// goes through it.
func TestForeignIDs(t *testing.T) {
	ctx := context.Background()
	solo := openFilled(t, "lab-a")
	shared := openFilled(t, "lab-a", "lab-b")
	q, e := shared.Write, shared.Engine
	ids := func(query string, args ...any) []int64 { t.Helper(); return rowIDs(t, shared.Write, query, args...) }

	want := reads(t, solo, "lab-a")
	wantB := reads(t, shared, "lab-b")
	// lab-b, alone and before lab-a, reads the same too.
	soloB, sharedBA := openFilled(t, "lab-b"), openFilled(t, "lab-b", "lab-a")
	aloneB := reads(t, soloB, "lab-b")
	for name, got := range reads(t, sharedBA, "lab-b") {
		if got != aloneB[name] {
			t.Errorf("lab-b's %s beside lab-a:\n got %s\nwant %s", name, got, aloneB[name])
		}
	}
	for name, got := range reads(t, shared, "lab-a") {
		if got != want[name] {
			t.Errorf("lab-a's %s beside lab-b:\n got %s\nwant %s", name, got, want[name])
		}
	}
	for name, got := range reads(t, shared, "lab-b") {
		if got != wantB[name] {
			t.Errorf("lab-b's %s changed:\n got %s\nwant %s", name, got, wantB[name])
		}
	}

	// lab-b's rows, and lab-a's notes of bob, asked for in the name of
	// lab-a and of ada.
	papers := ids(`SELECT id FROM papers WHERE org_id = 'lab-b'`)
	sessions := ids(`SELECT id FROM sessions WHERE org_id = 'lab-b'`)
	claims := ids(`SELECT node_id FROM session_claims WHERE org_id = 'lab-b'`)
	analyses := ids(`SELECT id FROM analyses WHERE org_id = 'lab-b'`)
	memories := ids(`SELECT id FROM memories WHERE org_id = 'lab-b'`)
	nodes := ids(`SELECT id FROM nodes WHERE org_id = 'lab-b'`)
	bobNotes := ids(`SELECT id FROM memories WHERE org_id = 'lab-a' AND user_id = 'bob'`)
	bobNodes := ids(`SELECT id FROM nodes WHERE org_id = 'lab-a' AND user_id = 'bob' AND kind = 'memory'`)
	empty := func(name string, n int, err error) {
		t.Helper()
		if n != 0 || err != nil {
			t.Errorf("%s: %d rows, %v; want none", name, n, err)
		}
	}
	// Node numbers are a workspace's own: lab-b's numbers, asked for in
	// lab-a's name, name lab-a's nodes of those numbers, never lab-b's.
	nums := ids(`SELECT COALESCE(num, id) FROM nodes WHERE org_id = 'lab-b' AND kind != 'memory'`)
	got, err := store.NodesNotOfKind(ctx, q, e, "lab-a", "memory", nums)
	if err != nil {
		t.Fatal(err)
	}
	for num, id := range got {
		if slices.Contains(nodes, id) {
			t.Errorf("NodesNotOfKind(lab-a, %d) = lab-b's node %d", num, id)
		}
		if one, err := store.NodeIDNotOfKind(ctx, q, "lab-a", num, "memory"); err != nil || one != id {
			t.Errorf("NodeIDNotOfKind(lab-a, %d) = %d, %v; want %d", num, one, err, id)
		}
	}
	s, err := store.SessionNeighbours(ctx, q, "lab-a", sessions)
	empty("SessionNeighbours", len(s.Papers)+len(s.Claims)+len(s.Related), err)
	p, err := store.PaperNeighbours(ctx, q, "lab-a", papers)
	empty("PaperNeighbours", len(p.Sessions)+len(p.Claims), err)
	c, err := store.ClaimNeighbours(ctx, q, e, "lab-a", claims)
	empty("ClaimNeighbours", len(c.Sessions)+len(c.Papers), err)
	gs, err := store.GraphSessions(ctx, q, e, "lab-a", sessions)
	empty("GraphSessions", len(gs), err)
	gp, err := store.GraphPapers(ctx, q, e, "lab-a", papers)
	empty("GraphPapers", len(gp), err)
	gc, err := store.GraphClaims(ctx, q, e, "lab-a", claims)
	empty("GraphClaims", len(gc), err)
	ps, err := store.PapersByID(ctx, q, e, "lab-a", papers)
	empty("PapersByID", len(ps), err)
	ap, err := store.AnalysedPapers(ctx, q, "lab-a", analyses)
	empty("AnalysedPapers", len(ap), err)
	sn, err := store.NodesOfOwner(ctx, q, "lab-a", "paper", papers[0], "Claim", "Passage")
	empty("NodesOfOwner", len(sn), err)
	cs, err := store.Candidates(ctx, q, e, &store.NodeFilter{Org: "lab-a"}, nodes)
	empty("Candidates", len(cs), err)
	cs, err = store.Candidates(ctx, q, e, &store.NodeFilter{Org: "lab-a", User: "ada"}, bobNodes)
	empty("Candidates of bob's notes as ada", len(cs), err)
	cs, err = store.Candidates(ctx, q, e, &store.NodeFilter{Org: "lab-a"}, bobNodes)
	empty("Candidates of bob's notes for the workspace", len(cs), err)
	nb, err := store.MemoryNeighbours(ctx, q, e, "lab-a", "ada", bobNotes, 3)
	empty("MemoryNeighbours of bob's notes as ada", len(nb), err)
	nb, err = store.MemoryNeighbours(ctx, q, e, "lab-a", "ada", memories, 3)
	empty("MemoryNeighbours of lab-b's notes", len(nb), err)
	mn, err := store.MemoryNodes(ctx, q, e, "lab-a", "ada", bobNodes)
	empty("MemoryNodes of bob's notes as ada", len(mn), err)
	mn, err = store.MemoryNodes(ctx, q, e, "lab-a", "ada", ids(`SELECT id FROM nodes WHERE org_id = 'lab-b' AND user_id = 'ada'`))
	empty("MemoryNodes of lab-b's ada's notes", len(mn), err)
	adaNotes := ids(`SELECT id FROM memories WHERE org_id = 'lab-a' AND user_id = 'ada'`)
	adaNodes := ids(`SELECT id FROM nodes WHERE org_id = 'lab-a' AND user_id = 'ada'`)
	nb, err = store.MemoryNeighbours(ctx, q, e, "lab-a", "ada", adaNotes, 3)
	if err != nil || len(nb) != len(adaNotes) {
		t.Fatalf("ada's neighbourhoods = %+v, %v", nb, err)
	}
	// Note nodes whose user or workspace disagrees with their note's.
	note := func(org, user string) int64 {
		return ids(`SELECT min(id) FROM memories WHERE org_id = ? AND user_id = ?`, org, user)[0]
	}
	odd := []int64{
		plantNode(t, shared, "lab-a", "mallory", "memory", note("lab-a", "ada")),
		plantNode(t, shared, "lab-a", "ada", "memory", note("lab-a", "bob")),
		plantNode(t, shared, "lab-a", "ada", "memory", note("lab-b", "ada")),
	}
	mn, err = store.MemoryNodes(ctx, q, e, "lab-a", "ada", odd)
	empty("MemoryNodes of nodes not of ada's notes", len(mn), err)
	var near int
	for _, h := range nb {
		for _, id := range slices.Concat(h.Before, h.After) {
			near++
			if !slices.Contains(adaNodes, id) {
				t.Errorf("ada's note %d has neighbour node %d, not ada's", h.Memory, id)
			}
		}
	}
	if near == 0 {
		t.Error("ada's notes have no neighbours in their conversation")
	}

	before := counts(t, q)
	for _, id := range papers {
		if err := store.DeletePaperRow(ctx, q, "lab-a", id); err != nil {
			t.Fatal(err)
		}
		if err := store.DeleteNodesOf(ctx, q, "lab-a", "paper", id); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range analyses {
		if err := store.DeleteAnalysisRow(ctx, q, "lab-a", id); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range memories {
		if err := store.DeleteMemoryRow(ctx, q, "lab-a", id); err != nil {
			t.Fatal(err)
		}
	}
	// An export written in lab-a's name for lab-b's session row that has one.
	exported := ids(`SELECT session_id FROM session_exports WHERE org_id = 'lab-b'`)
	if err := store.UpsertExport(ctx, q, "lab-a", exported[0], &store.Export{UserID: "mallory", Steps: "[]", RecalledPapers: "[]",
		RecalledClaims: "[]", Metadata: "{}", CreatedAt: "2026-03-02T10:00:00Z", UpdatedAt: "2026-03-02T10:00:00Z"}, ""); err != nil {
		t.Fatal(err)
	}
	// lab-b's related edges, re-weighed and deleted in lab-a's name.
	edges, err := store.RelatedEdges(ctx, q, "lab-b")
	if err != nil || len(edges) == 0 {
		t.Fatalf("lab-b's edges = %v, %v", edges, err)
	}
	ew, err := store.NewEdgeWriter(ctx, q, "lab-a", "2026-03-05T00:00:00.000Z")
	if err != nil {
		t.Fatal(err)
	}
	for ab := range edges {
		if err := ew.Update(ctx, store.Edge{A: ab[0], B: ab[1], Weight: 0.01}); err != nil {
			t.Fatal(err)
		}
		if err := ew.Delete(ctx, ab[0], ab[1]); err != nil {
			t.Fatal(err)
		}
	}
	ew.Close()
	if after, err := store.RelatedEdges(ctx, q, "lab-b"); err != nil || fmt.Sprint(after) != fmt.Sprint(edges) {
		t.Errorf("lab-b's edges after lab-a's writes = %v, %v; want %v", after, err, edges)
	}
	if after := counts(t, q); after != before {
		t.Errorf("rows before and after deletes with foreign ids:\n%s\n%s", before, after)
	}
	if got := reads(t, shared, "lab-b")["Exports"]; got != wantB["Exports"] {
		t.Errorf("lab-b's exports after lab-a wrote one for its session:\n got %s\nwant %s", got, wantB["Exports"])
	}

	// Rows in one workspace's name never show in the other's reads,
	// whatever they point at. Link rows in lab-b's name that point at
	// lab-a's sessions, papers and claims, then rows in lab-a's name that
	// point at lab-b's, as a bug upstream could write them.
	var planted []int64
	same(t, "lab-a", reads(t, shared, "lab-a"), func() map[string]string {
		planted = plant(t, shared, "lab-b", "lab-a")
		return reads(t, shared, "lab-a")
	})
	ownerless(t, shared, "lab-b", planted)
	exportsA := reads(t, shared, "lab-a")["Exports"]
	same(t, "lab-b", reads(t, shared, "lab-b"), func() map[string]string {
		planted = plant(t, shared, "lab-a", "lab-b")
		return reads(t, shared, "lab-b")
	})
	ownerless(t, shared, "lab-a", planted)
	// The export in lab-a's name is lab-a's row, but of lab-b's session.
	if got := reads(t, shared, "lab-a")["Exports"]; got != exportsA {
		t.Errorf("lab-a's exports with one of lab-b's session:\n got %s\nwant %s", got, exportsA)
	}
	// A link in lab-b's name from its session to lab-a's paper is lab-b's
	// row, but the paper's domain is not lab-b's session's.
	domains := reads(t, shared, "lab-b")["SessionDomains"]
	if _, err := q.ExecContext(ctx, `INSERT INTO session_papers (session_id, paper_id, org_id, created_at)
		SELECT s.id, p.id, 'lab-b', s.created_at FROM sessions s, papers p
		WHERE s.org_id = 'lab-b' AND s.session_id = 's1' AND p.org_id = 'lab-a' AND p.doi = '10.1/spare'`); err != nil {
		t.Fatal(err)
	}
	if got := reads(t, shared, "lab-b")["SessionDomains"]; got != domains {
		t.Errorf("lab-b's session domains with lab-a's paper linked:\n got %s\nwant %s", got, domains)
	}
}

// same checks that the reads after change are the reads before.
func same(t *testing.T, org string, before map[string]string, change func() map[string]string) {
	t.Helper()
	for name, got := range change() {
		if got != before[name] {
			t.Errorf("%s's %s after rows planted in the other's name:\n got %s\nwant %s", org, name, got, before[name])
		}
	}
}

// plant writes, in workspace label's name, a link of each kind to rows of
// workspace target — a paper and claims its sessions never used, an
// export of a session without one, an edge between its session and one
// of label's — and nodes owned by target's paper and analysis, which it
// returns.
func plant(t *testing.T, db *store.DB, label, target string) []int64 {
	t.Helper()
	one := func(query, org string) int64 {
		t.Helper()
		return rowIDs(t, db.Write, strings.ReplaceAll(query, "ORG", "'"+org+"'"))[0]
	}
	s2 := one(`SELECT id FROM sessions WHERE org_id = ORG AND session_id = 's2'`, target)
	s3 := one(`SELECT id FROM sessions WHERE org_id = ORG AND session_id = 's3'`, target)
	own := one(`SELECT id FROM sessions WHERE org_id = ORG AND session_id = 's2'`, label)
	spare := one(`SELECT id FROM papers WHERE org_id = ORG AND doi = '10.1/spare'`, target)
	node := one(`SELECT min(id) FROM nodes WHERE org_id = ORG AND kind = 'paper'
		AND id NOT IN (SELECT node_id FROM session_claims)`, target)
	analysis := one(`SELECT min(id) FROM nodes WHERE org_id = ORG AND kind = 'analysis'
		AND id NOT IN (SELECT node_id FROM session_claims)`, target)
	const at = "2026-03-05T00:00:00.000Z"
	for _, stmt := range []struct {
		query string
		args  []any
	}{
		{`INSERT INTO session_papers (session_id, paper_id, org_id, created_at) VALUES (?, ?, ?, ?)`, []any{s3, spare, label, at}},
		{`INSERT INTO session_claims (session_id, node_id, org_id, created_at) VALUES (?, ?, ?, ?)`, []any{s2, node, label, at}},
		{`INSERT INTO session_claims (session_id, node_id, org_id, created_at) VALUES (?, ?, ?, ?)`, []any{s3, analysis, label, at}},
		{`INSERT INTO session_exports (org_id, session_id, user_id, metadata, created_at, updated_at)
			VALUES (?, ?, 'mallory', '{"domain":"planted"}', ?, ?)`, []any{label, s3, at, at}},
		{`INSERT INTO session_edges (a, b, org_id, weight, created_at, updated_at) VALUES (?, ?, ?, 0.5, ?, ?)`,
			[]any{min(s3, own), max(s3, own), label, at, at}},
	} {
		if _, err := db.Write.ExecContext(context.Background(), stmt.query, stmt.args...); err != nil {
			t.Fatalf("%s: %v", stmt.query, err)
		}
	}
	// Nodes in label's name owned by target's paper, analysis, document
	// and note, linked from label's session.
	var nodes []int64
	for _, owner := range []struct {
		kind  string
		owner int64
	}{
		{"paper", spare},
		{"analysis", one(`SELECT min(id) FROM analyses WHERE org_id = ORG`, target)},
		{"document", one(`SELECT min(id) FROM documents WHERE org_id = ORG`, target)},
		{"memory", one(`SELECT min(id) FROM memories WHERE org_id = ORG`, target)},
	} {
		id := plantNode(t, db, label, "", owner.kind, owner.owner)
		if _, err := db.Write.ExecContext(context.Background(), `INSERT INTO session_claims (session_id, node_id, org_id, created_at)
			VALUES (?, ?, ?, ?)`, own, id, label, at); err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, id)
	}
	return nodes
}

// plantNode writes a node of org and user, of the kind, owned by owner.
func plantNode(t *testing.T, db *store.DB, org, user, kind string, owner int64) int64 {
	t.Helper()
	var id int64
	err := db.Write.QueryRowContext(context.Background(), `INSERT INTO nodes (org_id, user_id, kind, owner_id, label, text, tokens, created_at)
		VALUES (?, ?, ?, ?, 'Claim', 'A planted claim.', 4, '2026-03-05T00:00:00.000Z') RETURNING id`, org, user, kind, owner).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// ownerless checks that label's nodes, owned by another workspace's rows,
// come from no paper.
func ownerless(t *testing.T, db *store.DB, label string, nodes []int64) {
	t.Helper()
	ctx := context.Background()
	c, err := store.ClaimNeighbours(ctx, db.Write, db.Engine, label, nodes)
	if err != nil || len(c.Papers) != 0 {
		t.Errorf("%s's planted nodes come from papers %+v (%v); want none", label, c.Papers, err)
	}
	gc, err := store.GraphClaims(ctx, db.Write, db.Engine, label, nodes)
	if err != nil || len(gc) != len(nodes) {
		t.Fatalf("%s's planted nodes: %+v, %v", label, gc, err)
	}
	for _, n := range gc {
		if n.DOI != "" {
			t.Errorf("%s's planted node %d has DOI %q; want none", label, n.ID, n.DOI)
		}
	}
	// In label's search index, with vectors in label's name, they carry
	// no paper's title; a node of target's with a vector in label's name
	// is not in it.
	other := map[string]string{"lab-a": "lab-b", "lab-b": "lab-a"}[label]
	stray := plantNode(t, db, other, "", "paper", 0)
	for _, id := range append(slices.Clone(nodes), stray) {
		if _, err := db.Write.ExecContext(ctx, `INSERT INTO node_vectors (node_id, org_id, embedding)
			SELECT ?, ?, embedding FROM node_vectors WHERE node_id = (SELECT min(node_id) FROM node_vectors)`, id, label); err != nil {
			t.Fatal(err)
		}
	}
	index := map[int64]store.IndexedNode{}
	snap, err := store.SnapshotNodes(ctx, db.Read, label)
	if err != nil {
		t.Fatal(err)
	}
	err = snap.Nodes(ctx, 0, "paper", func(n store.IndexedNode) error { index[n.ID] = n; return nil })
	if err != nil {
		t.Fatal(err)
	}
	vectors, err := snap.CountVectors(ctx)
	if err != nil || vectors != len(index)+1 { // the stray node's vector is label's too
		t.Errorf("%s's index: %d vectors counted (%v), %d nodes read", label, vectors, err, len(index))
	}
	if vids, err := snap.VectorIDs(ctx); err != nil || len(vids) != vectors {
		t.Errorf("%s's index: %d vector ids (%v), %d vectors counted", label, len(vids), err, vectors)
	}
	snap.Close()
	if _, ok := index[stray]; ok {
		t.Errorf("%s's index holds the other workspace's node %d", label, stray)
	}
	for _, id := range nodes {
		if n, ok := index[id]; !ok || n.Title != "" {
			t.Errorf("%s's index: planted node %d = %+v (%v); want it, untitled", label, id, n, ok)
		}
	}

	cs, err := store.Candidates(ctx, db.Write, db.Engine, &store.NodeFilter{Org: label}, nodes)
	if err != nil || len(cs) != len(nodes) {
		t.Fatalf("%s's planted candidates: %+v, %v", label, cs, err)
	}
	for _, c := range cs {
		if c.DOI != "" || c.Title != "" || c.Source != "" || c.Key != "" {
			t.Errorf("%s's planted %s node %d has its owner's provenance: %+v", label, c.Kind, c.ID, c)
		}
	}
}

// openFilled opens a database and fills the workspaces, in order, with
// the same research history; lab-b's titles and domains differ.
func openFilled(t *testing.T, orgs ...string) *store.DB {
	t.Helper()
	ctx := context.Background()
	path := testdb.Path(t)
	at := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC) // both databases' clock
	m, err := papermem.Open(ctx, path, &papermem.Options{Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, org := range orgs {
		fill(t, m.Workspace(org), map[string]string{"lab-a": "medicine"}[org])
	}
	db, err := store.Open(ctx, path, store.SyncNormal)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// fill stores one research history in w, its papers in the domain
// ("biology" and "B:"-prefixed titles when domain is "").
func fill(t *testing.T, w *papermem.Workspace, domain string) {
	t.Helper()
	ctx := context.Background()
	prefix := ""
	if domain == "" {
		domain, prefix = "biology", "B: "
	}
	for _, in := range []papermem.PaperInput{
		{DOI: "10.1/vitd", Title: prefix + "Vitamin D and fractures", Domain: domain,
			Text: "# Vitamin D and fractures\n\n## Abstract\n\nVitamin D supplements did not reduce fracture risk in 25,871 adults over five years."},
		{DOI: "10.1/falls", Title: prefix + "Vitamin D and falls", Domain: domain,
			Text: "Vitamin D supplements did not reduce falls in older adults (hazard ratio 0.98)."},
		{DOI: "10.1/spare", Title: prefix + "Zinc and colds", Domain: domain + "-spare", // in no session
			Text: "Zinc lozenges shortened colds by a day."},
	} {
		if _, _, err := w.StorePaper(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.StoreAnalysis(ctx, papermem.Analysis{DOI: "10.1/vitd", Markdown: "# Verdict\nNo effect of vitamin D on fractures."}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.IngestFile(ctx, "notes.md", strings.NewReader("# "+prefix+"Lab notes\n\nVitamin D assays drifted by 4% in March."),
		papermem.IngestOptions{Domain: domain}); err != nil {
		t.Fatal(err)
	}
	for i, n := range []struct{ user, text string }{
		{"ada", "Ada prefers randomised trials of vitamin D."},
		{"ada", "Ada met the falls group on Monday."},
		{"ada", "Ada wrote to the trial's authors."},
		{"bob", "Bob prefers cohort studies of vitamin D."},
		{"bob", "Bob reads falls trials on Fridays."},
	} {
		// One conversation, both users: each note's neighbours are its
		// user's.
		meta := map[string]any{"session": "c1", "seq": i}
		if _, err := w.Remember(ctx, n.user, papermem.NoteInput{Text: n.text, Domain: domain, Metadata: meta}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := w.Recall(ctx, papermem.RecallRequest{Question: "does vitamin D reduce fracture risk"})
	if err != nil || len(res.Spans) == 0 {
		t.Fatalf("recall = %+v, %v", res, err)
	}
	verdict, err := w.Recall(ctx, papermem.RecallRequest{Question: "effect of vitamin D on fractures", Label: "Analysis"})
	if err != nil || len(verdict.Spans) == 0 {
		t.Fatalf("analysis recall = %+v, %v", verdict, err)
	}
	for i, sid := range []string{"s1", "s2", "s3"} {
		claims := []int64{res.Spans[0].NodeID}
		if i == 1 {
			claims = append(claims, verdict.Spans[0].NodeID) // a claim of the analysis, of the paper by its DOI
		}
		if _, err := w.LinkSession(ctx, papermem.SessionLink{SessionID: sid, UserID: "ada", Papers: []string{"10.1/vitd", "10.1/falls"},
			Claims: claims}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Materialize(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ExportSession(ctx, papermem.SessionRecord{SessionID: "s1", UserID: "ada", CreatedAt: "2026-03-01T10:00:00Z",
		Steps: []papermem.Step{{Agent: "planner", Tool: "recall"}}, Metadata: map[string]any{"domain": domain}}); err != nil {
		t.Fatal(err)
	}
}

// reads returns every read of org's rows the store offers, each as text.
func reads(t *testing.T, db *store.DB, org string) map[string]string {
	t.Helper()
	ctx := context.Background()
	q, e := db.Write, db.Engine
	own := func(query string) []int64 {
		t.Helper()
		return rowIDs(t, q, strings.ReplaceAll(query, "ORG", "'"+org+"'"))
	}
	papers := own(`SELECT id FROM papers WHERE org_id = ORG`)
	sessions := own(`SELECT id FROM sessions WHERE org_id = ORG`)
	claims := own(`SELECT DISTINCT node_id FROM session_claims WHERE org_id = ORG`)
	analyses := own(`SELECT id FROM analyses WHERE org_id = ORG`)
	nodes := own(`SELECT id FROM nodes WHERE org_id = ORG AND user_id = ''`)
	adaNotes := own(`SELECT id FROM memories WHERE org_id = ORG AND user_id = 'ada'`)
	adaNodes := own(`SELECT id FROM nodes WHERE org_id = ORG AND user_id = 'ada'`)
	out := map[string]string{}
	read := func(name string, v any, err error) {
		b, jerr := json.Marshal(v)
		if jerr != nil {
			b = []byte(fmt.Sprint(v))
		}
		out[name] = fmt.Sprintf("%s %v", b, err)
	}
	var err error
	var v any
	v, err = store.SessionPapers(ctx, q, org)
	read("SessionPapers", v, err)
	v, err = store.RelatedEdges(ctx, q, org)
	read("RelatedEdges", v, err)
	v, err = store.SessionNeighbours(ctx, q, org, sessions)
	read("SessionNeighbours", v, err)
	v, err = store.PaperNeighbours(ctx, q, org, papers)
	read("PaperNeighbours", v, err)
	v, err = store.ClaimNeighbours(ctx, q, e, org, claims)
	read("ClaimNeighbours", v, err)
	v, err = store.GraphSessions(ctx, q, e, org, sessions)
	read("GraphSessions", v, err)
	v, err = store.GraphPapers(ctx, q, e, org, papers)
	read("GraphPapers", v, err)
	v, err = store.GraphClaims(ctx, q, e, org, claims)
	read("GraphClaims", v, err)
	v, err = store.RecentSessions(ctx, q, org, 10)
	read("RecentSessions", v, err)
	v, err = store.Exports(ctx, q, org, store.ExportFilter{}, 100)
	read("Exports", v, err)
	v, err = store.SessionOwners(ctx, q, org)
	read("SessionOwners", v, err)
	v, err = store.SessionDomains(ctx, q, e, org)
	read("SessionDomains", v, err)
	v, err = store.MemoryDomains(ctx, q, org)
	read("MemoryDomains", v, err)
	v, err = store.AnalysedPapers(ctx, q, org, analyses)
	read("AnalysedPapers", v, err)
	v, err = store.PapersByID(ctx, q, e, org, papers)
	read("PapersByID", sortedJSON(v), err)
	v, err = store.Candidates(ctx, q, e, &store.NodeFilter{Org: org}, nodes)
	read("Candidates", sortedJSON(v), err)
	v, err = store.Candidates(ctx, q, e, &store.NodeFilter{Org: org, User: "ada"}, adaNodes)
	read("Candidates of ada", sortedJSON(v), err)
	v, err = store.MemoryNeighbours(ctx, q, e, org, "ada", adaNotes, 3)
	read("MemoryNeighbours", v, err)
	v, err = store.MemoryNodes(ctx, q, e, org, "ada", adaNodes)
	read("MemoryNodes", sortedJSON(v), err)
	return out
}

// sortedJSON is v's elements as JSON, sorted: for reads in no order.
func sortedJSON(v any) []string {
	b, _ := json.Marshal(v)
	var elems []json.RawMessage
	json.Unmarshal(b, &elems)
	out := make([]string, len(elems))
	for i, e := range elems {
		out[i] = string(e)
	}
	slices.Sort(out)
	return out
}

// rowIDs returns the first column of the query's rows; there must be one.
func rowIDs(t *testing.T, q store.Querier, query string, args ...any) []int64 {
	t.Helper()
	rows, err := q.QueryContext(context.Background(), query, args...)
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
	if err := rows.Err(); err != nil || len(out) == 0 {
		t.Fatalf("no rows for %s %v (%v)", query, args, err)
	}
	return out
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
