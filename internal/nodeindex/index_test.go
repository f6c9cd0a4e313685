package nodeindex_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/nodeindex"
	"github.com/papermem/papermem/internal/scifact"
	"github.com/papermem/papermem/internal/store"
	"github.com/papermem/papermem/internal/testdb"
)

// The index is tested over databases that papermem writes: the nodes,
// vectors and version numbers its write paths store, read by an index of
// its own through a second handle on the file.

var ctx = context.Background()

// scifactData is where the shared SciFact data lies from this directory.
var scifactData = filepath.Join("..", "..", scifact.DefaultDir)

// openMemory opens a papermem database at a new path and returns it with
// the path.
func openMemory(tb testing.TB) (*papermem.Memory, string) {
	tb.Helper()
	path := testdb.Path(tb)
	m, err := papermem.Open(ctx, path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { m.Close() })
	return m, path
}

// scifactMemory stores the first n SciFact abstracts as papers 10.1/d0…
// and returns the memory, its path, the corpus and the claims.
func scifactMemory(tb testing.TB, n int) (*papermem.Memory, string, []scifact.Doc, []scifact.Query) {
	tb.Helper()
	docs, err := scifact.Corpus(scifactData)
	if err != nil {
		tb.Fatal(err)
	}
	claims, err := scifact.Queries(scifactData)
	if err != nil {
		tb.Fatal(err)
	}
	m, path := openMemory(tb)
	for i, d := range docs[:min(n, len(docs))] {
		if _, _, err := m.StorePaper(ctx, papermem.PaperInput{DOI: fmt.Sprintf("10.1/d%d", i), Title: d.Title, Text: d.Text}); err != nil {
			tb.Fatal(err)
		}
	}
	return m, path, docs, claims
}

// openDB opens the database at path a second time, as another process
// would, and closes it when tb ends.
func openDB(tb testing.TB, path string) *store.DB {
	tb.Helper()
	db, err := store.Open(ctx, path, store.SyncNormal)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// newIndex returns an index over db for papermem's offline embedder,
// taking at most maxBytes of memory, and closes it when tb ends.
func newIndex(tb testing.TB, db *store.DB, maxBytes int64) *nodeindex.Index {
	return newIndexIn(tb, db, maxBytes, "")
}

// newIndexIn is newIndex persisted in dir.
func newIndexIn(tb testing.TB, db *store.DB, maxBytes int64, dir string) *nodeindex.Index {
	return newIndexOf(tb, db, maxBytes, dir, "offline")
}

// newIndexOf is newIndexIn for vectors of the named embedder.
func newIndexOf(tb testing.TB, db *store.DB, maxBytes int64, dir, embedder string) *nodeindex.Index {
	tb.Helper()
	x, err := nodeindex.New(db.Read, nodeindex.Config{Dim: papermem.DefaultDim, Embedder: embedder, MaxBytes: maxBytes, Dir: dir,
		TitleLabel: papermem.LabelPaper, TitledKind: papermem.KindPaper})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { x.Close() })
	return x
}

// nearest is p.Nearest, failing tb on an error.
func nearest(tb testing.TB, p *nodeindex.Part, q nodeindex.Query, qv []float32) []nodeindex.Hit {
	tb.Helper()
	hs, err := p.Nearest(q, qv)
	if err != nil {
		tb.Fatal(err)
	}
	return hs
}

// shared selects the shared nodes of every label, as workspace recall does.
func shared(k int) nodeindex.Query {
	return nodeindex.Query{ExceptLabel: papermem.LabelMemory, K: k}
}

// part returns workspace org's part of x, brought up to date.
func part(tb testing.TB, x *nodeindex.Index, org string) *nodeindex.Part {
	tb.Helper()
	p, err := x.Part(ctx, org)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// TestWarm checks that Warm loads the part of every workspace of a
// database, and that it stops with a cancelled context.
func TestWarm(t *testing.T) {
	m, path := openMemory(t)
	for _, org := range []string{"default", "lab-b"} {
		if _, _, err := m.Workspace(org).StorePaper(ctx, papermem.PaperInput{DOI: "10.1/" + org, Title: "Vitamin D and fractures",
			Text: "Vitamin D supplementation reduced fracture risk by 20% in older adults."}); err != nil {
			t.Fatal(err)
		}
	}
	x := newIndex(t, openDB(t, path), papermem.DefaultIndexMaxBytes)
	if err := x.Warm(ctx); err != nil {
		t.Fatal(err)
	}
	if got := x.Loaded(); !slices.Equal(got, []string{"default", "lab-b"}) {
		t.Fatalf("Warm loaded %v", got)
	}
	for _, org := range []string{"default", "lab-b"} {
		if p := part(t, x, org); p.Size() == 0 || p.Version() < 1 {
			t.Fatalf("workspace %s: %d entries at version %d", org, p.Size(), p.Version())
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := newIndex(t, openDB(t, path), papermem.DefaultIndexMaxBytes).Warm(cancelled); err == nil {
		t.Fatal("Warm with a cancelled context returned nil")
	}
}

// TestIndexSeesAnyDeletion deletes a paper's vectors behind papermem's
// back, in SQL: the trigger on node_vectors tells the warm index, which must
// stop finding the paper.
func TestIndexSeesAnyDeletion(t *testing.T) {
	m, path := openMemory(t)
	for i := range 3 {
		if _, _, err := m.StorePaper(ctx, papermem.PaperInput{DOI: fmt.Sprintf("10.1/s%d", i), Title: fmt.Sprintf("Study %d", i),
			Text: fmt.Sprintf("Marker qv%dz lowered blood pressure by %d mmHg.", i, 5+i)}); err != nil {
			t.Fatal(err)
		}
	}
	db := openDB(t, path)
	rows, err := db.Read.QueryContext(ctx, `SELECT n.id FROM nodes n JOIN papers p ON p.org_id = n.org_id AND p.id = n.owner_id AND n.kind = 'paper'
		WHERE n.org_id = ? AND p.doi = '10.1/s1'`, papermem.DefaultWorkspace)
	if err != nil {
		t.Fatal(err)
	}
	var nodes []int64
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		nodes = append(nodes, id)
	}
	if rows.Close(); len(nodes) == 0 {
		t.Fatal("paper 10.1/s1 has no nodes")
	}
	x := newIndex(t, db, papermem.DefaultIndexMaxBytes)
	find := func() int {
		n := 0
		for _, h := range part(t, x, papermem.DefaultWorkspace).Lexical(shared(200), "marker qv1z") {
			if slices.Contains(nodes, h.ID) {
				n++
			}
		}
		return n
	}
	if find() == 0 {
		t.Fatal("stored paper not found")
	}
	if _, err := db.Write.ExecContext(ctx, `DELETE FROM node_vectors WHERE node_id IN
		(SELECT n.id FROM nodes n JOIN papers p ON p.id = n.owner_id AND n.kind = 'paper' WHERE p.doi = '10.1/s1')`); err != nil {
		t.Fatal(err)
	}
	if n := find(); n != 0 {
		t.Fatalf("found %d nodes of a paper whose vectors were deleted", n)
	}
}

// TestIndexEviction bounds the index to fewer nodes than two workspaces
// hold: loading one drops the other, least recently used, which is
// reloaded, with the same search results, when used again.
func TestIndexEviction(t *testing.T) {
	m, path := openMemory(t)
	for _, org := range []string{"lab-a", "lab-b"} {
		if _, _, err := m.Workspace(org).StorePaper(ctx, papermem.PaperInput{DOI: "10.1/" + org, Title: "Sleep and memory in " + org,
			Text: "Sleep deprivation reduced recall accuracy by 30% in adults. Naps restored it within a week."}); err != nil {
			t.Fatal(err)
		}
	}
	x := newIndex(t, openDB(t, path), 1) // room for one workspace, not two
	const question = "does sleep deprivation reduce recall"
	qv, err := papermem.NewOfflineEmbedder().Embed(ctx, []string{question})
	if err != nil {
		t.Fatal(err)
	}
	search := func(org string) [2][]nodeindex.Hit {
		p := part(t, x, org)
		hits := [2][]nodeindex.Hit{p.Lexical(shared(200), question), nearest(t, p, shared(200), qv[0])}
		if len(hits[0]) == 0 || len(hits[1]) == 0 {
			t.Fatalf("%s: nothing found: %v", org, hits)
		}
		return hits
	}
	first := search("lab-a")
	if got := x.Loaded(); !slices.Equal(got, []string{"lab-a"}) {
		t.Fatalf("loaded %v after searching lab-a", got)
	}
	search("lab-b")
	if got := x.Loaded(); !slices.Equal(got, []string{"lab-b"}) {
		t.Fatalf("loaded %v after searching lab-b with room for one workspace", got)
	}
	if again := search("lab-a"); !cmp.Equal(first, again) {
		t.Fatalf("lab-a after reloading:\n%s", cmp.Diff(first, again))
	}
	if got := x.Loaded(); !slices.Equal(got, []string{"lab-a"}) {
		t.Fatalf("loaded %v after searching lab-a again", got)
	}
}

// TestQueryOwners checks that a query naming owners admits only their
// nodes in every search and look-up, and that an empty list admits none.
func TestQueryOwners(t *testing.T) {
	m, path := openMemory(t)
	for _, doi := range []string{"10.1/a", "10.1/b"} {
		if _, _, err := m.StorePaper(ctx, papermem.PaperInput{DOI: doi, Title: "Sleep and memory " + doi,
			Text: "Sleep deprivation reduced recall accuracy by 30% in adults. Naps restored it within a week."}); err != nil {
			t.Fatal(err)
		}
	}
	db := openDB(t, path)
	ids, err := store.PaperIDs(ctx, db.Read, papermem.DefaultWorkspace, []string{"10.1/a", "10.1/b"})
	if err != nil || len(ids) != 2 {
		t.Fatalf("paper ids %v, %v", ids, err)
	}
	slices.Sort(ids)
	a, b := ids[0], ids[1]
	p := part(t, newIndex(t, db, papermem.DefaultIndexMaxBytes), papermem.DefaultWorkspace)
	const question = "does sleep deprivation reduce recall"
	all := p.Lexical(shared(100), question)
	qv, err := p.Mean(all)
	if err != nil {
		t.Fatal(err)
	}
	scoped := shared(100)
	scoped.Kind, scoped.Owners = papermem.KindPaper, []int64{b}
	owners := func(ns []nodeindex.Node) map[int64]int {
		n := map[int64]int{}
		for _, x := range ns {
			n[x.Owner]++
		}
		return n
	}
	nodes := func(hs []nodeindex.Hit) []nodeindex.Node {
		var ns []nodeindex.Node
		for _, h := range hs {
			ns = append(ns, h.Node)
		}
		return ns
	}
	if got := owners(nodes(all)); got[a] == 0 || got[b] == 0 {
		t.Fatalf("unscoped search found owners %v, want both %d and %d", got, a, b)
	}
	var ofA, ofB int64 // a node of each paper
	for _, h := range all {
		if h.Owner == a {
			ofA = h.ID
		} else {
			ofB = h.ID
		}
	}
	for name, ns := range map[string][]nodeindex.Node{
		"Lexical":  nodes(p.Lexical(scoped, question)),
		"Nearest":  nodes(nearest(t, p, scoped, qv)),
		"Siblings": p.Siblings(ofB, scoped),
		"Owned":    p.Owned(papermem.KindPaper, b, scoped),
		"WeightedBM25": func() []nodeindex.Node {
			hs, _ := p.WeightedBM25(scoped, []nodeindex.Term{{Term: "sleep", Weight: 1}}, 1)
			return nodes(hs)
		}(),
	} {
		if got := owners(ns); len(got) != 1 || got[b] == 0 {
			t.Errorf("%s scoped to paper %d: nodes of owners %v", name, b, got)
		}
	}
	if ns := p.Siblings(ofA, scoped); len(ns) != 0 {
		t.Errorf("Siblings of paper %d's node scoped to paper %d: %v", a, b, ns)
	}
	if ns := p.Owned(papermem.KindPaper, a, scoped); len(ns) != 0 {
		t.Errorf("Owned of paper %d scoped to paper %d: %v", a, b, ns)
	}
	scoped.Owners = []int64{}
	if hs, ns := p.Lexical(scoped, question), nearest(t, p, scoped, qv); len(hs) != 0 || len(ns) != 0 {
		t.Errorf("empty owners admitted %v and %v", hs, ns)
	}
}

// BenchmarkIndexLoad loads a workspace's part of the index from SQLite, as
// the first search after a start or an eviction does.
func BenchmarkIndexLoad(b *testing.B) {
	_, path, _, _ := scifactMemory(b, 1000)
	db := openDB(b, path)
	var nodes int
	for b.Loop() {
		nodes = part(b, newIndex(b, db, papermem.DefaultIndexMaxBytes), papermem.DefaultWorkspace).Size()
	}
	b.ReportMetric(float64(nodes), "nodes")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(nodes), "µs/node")
	// The heap a loaded part holds, per node.
	x := newIndex(b, db, papermem.DefaultIndexMaxBytes)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p := part(b, x, papermem.DefaultWorkspace)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(p)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(nodes), "heap-B/node")
}

// TestScopedStatistics checks that a search kept to some owners weighs
// words within them: its scores are those of a workspace holding only
// those owners.
func TestScopedStatistics(t *testing.T) {
	m, path := openMemory(t)
	sleep := papermem.PaperInput{DOI: "10.1/sleep", Title: "Sleep and memory",
		Text: "Sleep deprivation reduced recall accuracy by 30% in adults. Naps restored recall within a week."}
	diet := papermem.PaperInput{DOI: "10.1/diet", Title: "Diet and recall",
		Text: "A diet rich in fish improved recall in older adults. Recall of words rose by 12%."}
	for _, in := range []papermem.PaperInput{sleep, diet} {
		if _, _, err := m.StorePaper(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := m.Workspace("alone").StorePaper(ctx, diet); err != nil {
		t.Fatal(err)
	}
	db := openDB(t, path)
	ids, err := store.PaperIDs(ctx, db.Read, papermem.DefaultWorkspace, []string{"10.1/diet"})
	if err != nil || len(ids) != 1 {
		t.Fatalf("paper ids %v, %v", ids, err)
	}
	x := newIndex(t, db, papermem.DefaultIndexMaxBytes)
	const question = "does a fish diet improve recall of words"
	for _, label := range []string{"", papermem.LabelClaim, papermem.LabelPaper} {
		scoped := shared(100)
		scoped.Label, scoped.Kind, scoped.Owners = label, papermem.KindPaper, ids
		alone := shared(100)
		alone.Label = label
		got := scores(part(t, x, papermem.DefaultWorkspace).Lexical(scoped, question))
		want := scores(part(t, x, "alone").Lexical(alone, question))
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("label %q: scoped scores %v, want those of a workspace of the paper alone %v", label, got, want)
		}
	}
}

func scores(hs []nodeindex.Hit) []float64 {
	out := make([]float64, len(hs))
	for i, h := range hs {
		out[i] = h.Score
	}
	return out
}

// TestIndexTenancy checks that a workspace's part of the index holds its
// own nodes and statistics only: beside a much larger workspace of
// overlapping words, a small workspace's searches and word weights are
// exactly those of a database holding it alone, also after its part was
// evicted and loaded again.
func TestIndexTenancy(t *testing.T) {
	docs, err := scifact.Corpus(scifactData)
	if err != nil {
		t.Fatal(err)
	}
	claims, err := scifact.Queries(scifactData)
	if err != nil {
		t.Fatal(err)
	}
	storeDocs := func(m *papermem.Memory, org string, ds []scifact.Doc) {
		for i, d := range ds {
			if _, _, err := m.Workspace(org).StorePaper(ctx, papermem.PaperInput{DOI: fmt.Sprintf("10.1/%s%d", org, i), Title: d.Title, Text: d.Text}); err != nil {
				t.Fatal(err)
			}
		}
	}
	small := docs[60:63]
	both, bothPath := openMemory(t)
	storeDocs(both, "big", docs[:60])
	storeDocs(both, "small", small)
	storeDocs(both, "big2", docs[63:70]) // written after the small one, too
	alone, alonePath := openMemory(t)
	storeDocs(alone, "small", small)
	bothDB, aloneDB := openDB(t, bothPath), openDB(t, alonePath)

	var questions []string
	for _, c := range claims[:20] {
		questions = append(questions, c.Text)
	}
	for _, d := range small {
		questions = append(questions, d.Title)
	}
	emb := papermem.NewOfflineEmbedder()
	type result struct {
		Lexical, Nearest []float64
		Owners           int
		IDF              []float64
	}
	search := func(p *nodeindex.Part) []result {
		var out []result
		for _, q := range questions {
			qv, err := emb.Embed(ctx, []string{q})
			if err != nil {
				t.Fatal(err)
			}
			lex, near := p.Lexical(shared(50), q), nearest(t, p, shared(50), qv[0])
			owners := map[int64]bool{}
			for _, h := range append(lex, near...) {
				owners[h.Owner] = true
			}
			r := result{Lexical: scores(lex), Nearest: scores(near), Owners: len(owners)}
			p.WithIDF("", func(idf func(string) float64) error {
				for _, w := range strings.Fields(q) {
					r.IDF = append(r.IDF, idf(strings.ToLower(w)))
				}
				return nil
			})
			out = append(out, r)
		}
		return out
	}
	want := search(part(t, newIndex(t, aloneDB, papermem.DefaultIndexMaxBytes), "small"))
	if want[0].Owners == 0 || want[0].Owners > len(small) {
		t.Fatalf("the small workspace alone found %d owners", want[0].Owners)
	}
	x := newIndex(t, bothDB, 1) // room for the workspace last searched alone
	if got := search(part(t, x, "small")); !cmp.Equal(want, got) {
		t.Fatalf("small workspace beside others (-alone +beside):\n%s", cmp.Diff(want, got))
	}
	part(t, x, "big") // evicts the small workspace's part
	if got := x.Loaded(); !slices.Equal(got, []string{"big"}) {
		t.Fatalf("loaded %v, want the big workspace alone", got)
	}
	if got := search(part(t, x, "small")); !cmp.Equal(want, got) {
		t.Fatalf("small workspace reloaded (-alone +reloaded):\n%s", cmp.Diff(want, got))
	}
}

// TestNodeCopies checks that nodes of the same label, section type and
// text share their Copy, whatever paper holds them, and that nodes that
// differ in any of these do not.
func TestNodeCopies(t *testing.T) {
	m, path := openMemory(t)
	text := "Sleep deprivation reduced recall accuracy by 30% in adults. Naps restored it within a week."
	for _, in := range []struct{ doi, text string }{{"10.1/a", text}, {"10.1/b", text}, {"10.1/c", text + " Caffeine did not."}} {
		if _, _, err := m.StorePaper(ctx, papermem.PaperInput{DOI: in.doi, Title: "Sleep and memory " + in.doi, Text: in.text}); err != nil {
			t.Fatal(err)
		}
	}
	db := openDB(t, path)
	ids, err := store.PaperIDs(ctx, db.Read, papermem.DefaultWorkspace, []string{"10.1/a", "10.1/b", "10.1/c"})
	if err != nil || len(ids) != 3 {
		t.Fatalf("paper ids %v, %v", ids, err)
	}
	slices.Sort(ids)
	p := part(t, newIndex(t, db, papermem.DefaultIndexMaxBytes), papermem.DefaultWorkspace)
	texts := map[int64]string{} // node id → label and text
	rows, err := db.Read.QueryContext(ctx, `SELECT id, label, text FROM nodes`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var label, text string
		if err := rows.Scan(&id, &label, &text); err != nil {
			t.Fatal(err)
		}
		texts[id] = label + "|" + text
	}
	rows.Close()
	var ns []nodeindex.Node
	for _, id := range ids {
		ns = append(ns, p.Owned(papermem.KindPaper, id, shared(100))...)
	}
	copies := 0
	for i, a := range ns {
		for _, b := range ns[i+1:] {
			if same := texts[a.ID] == texts[b.ID]; same != (a.Copy == b.Copy) {
				t.Errorf("nodes %d (%q) and %d (%q): Copy %x and %x", a.ID, texts[a.ID], b.ID, texts[b.ID], a.Copy, b.Copy)
			} else if same {
				copies++
			}
		}
	}
	if copies < 2 {
		t.Fatalf("%d pairs of copies among %d nodes, want at least the two sentences of 10.1/a and 10.1/b", copies, len(ns))
	}
}
