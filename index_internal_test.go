package papermem

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/papermem/papermem/internal/scifact"
	"github.com/papermem/papermem/internal/testdb"
)

// scifactMemory stores the first n SciFact abstracts as papers 10.1/d0…
// and returns the memory with the corpus and the claims.
func scifactMemory(t testing.TB, n int) (*Memory, []scifact.Doc, []scifact.Query) {
	t.Helper()
	dir := filepath.Join("..", "shared", "eval", "scifact")
	docs, err := scifact.Corpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	claims, err := scifact.Queries(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Open(context.Background(), testdb.Path(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	for i, d := range docs[:min(n, len(docs))] {
		if _, _, err := m.StorePaper(context.Background(), PaperInput{DOI: fmt.Sprintf("10.1/d%d", i), Title: d.Title, Text: d.Text}); err != nil {
			t.Fatal(err)
		}
	}
	return m, docs, claims
}

// TestPackMatchesFullRanking checks that packing in batches, which stops
// loading once the budget is full, takes exactly the spans of loading and
// boosting every ranked node first, whatever the budget, keywords, scope
// signals and label.
func TestPackMatchesFullRanking(t *testing.T) {
	m, _, claims := scifactMemory(t, 120)
	ctx := context.Background()
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range 60 {
		c := claims[i]
		q := query{org: m.org, limit: candidateLimit}
		if i%2 == 0 {
			q.label = LabelClaim
		}
		var keywords, signals []string
		if i%3 == 0 {
			keywords = strings.Fields(c.Text)[:2]
		}
		if i%4 == 0 {
			signals = []string{"evidence", "mechanisms"}
		}
		budget := 1 + rnd.IntN(6000)
		hs, err := m.rank(ctx, q, c.Text, keywords)
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.pack(ctx, q, hs, keywords, signals, budget)
		if err != nil {
			t.Fatal(err)
		}
		all, err := m.loadCandidates(ctx, q, hs)
		if err != nil {
			t.Fatal(err)
		}
		rankSpans(all, keywords, signals)
		want := newPacker(budget)
		for _, c := range all {
			want.add(c.Span, c.kind+":"+strconv.FormatInt(c.ownerID, 10))
		}
		if diff := cmp.Diff(&want.res, got); diff != "" {
			t.Fatalf("claim %d, budget %d: batched packing differs (-all first +batched):\n%s", i, budget, diff)
		}
	}
}

// TestWarm checks that Warm loads the index of every workspace of a
// reopened database, and that recall then finds what was stored.
func TestWarm(t *testing.T) {
	ctx := context.Background()
	path := testdb.Path(t)
	m, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, org := range []string{"default", "lab-b"} {
		if _, _, err := m.Workspace(org).StorePaper(ctx, PaperInput{DOI: "10.1/" + org, Title: "Vitamin D and fractures",
			Text: "Vitamin D supplementation reduced fracture risk by 20% in older adults."}); err != nil {
			t.Fatal(err)
		}
	}
	m.Close()
	if m, err = Open(ctx, path, nil); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.Warm(ctx); err != nil {
		t.Fatal(err)
	}
	for _, org := range []string{"default", "lab-b"} {
		p := m.index.orgs[org]
		if p == nil || len(p.ids) == 0 || p.version < 1 {
			t.Fatalf("workspace %s not loaded by Warm: %+v", org, p)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := m.Warm(cancelled); err == nil {
		t.Fatal("Warm with a cancelled context returned nil")
	}
}

// TestIndexConcurrent recalls from several goroutines while another stores
// and deletes papers (run with -race to check the index's locking), then
// checks that the index ends in the database's state: the deleted papers
// are never found, the kept ones are.
func TestIndexConcurrent(t *testing.T) {
	ctx := context.Background()
	m, err := Open(ctx, testdb.Path(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	paper := func(i int) PaperInput {
		return PaperInput{DOI: fmt.Sprintf("10.1/c%d", i), Title: fmt.Sprintf("Trial %d", i),
			Text: fmt.Sprintf("Compound zq%dx reduced relapse by %d%% compared with placebo in the trial.", i, 10+i)}
	}
	done := make(chan struct{})
	errs := make(chan error, 8)
	for g := range 4 {
		go func() {
			for i := 0; ; i++ {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				if _, err := m.Recall(ctx, RecallRequest{Question: fmt.Sprintf("compound zq%dx relapse", (g+i)%20), Label: LabelAny}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := range 20 {
		if _, _, err := m.StorePaper(ctx, paper(i)); err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 {
			if err := m.DeletePaper(ctx, paper(i-1).DOI); err != nil {
				t.Fatal(err)
			}
		}
	}
	close(done)
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for i := range 20 {
		for _, mode := range []Retrieval{RetrievalLexical, RetrievalVector} {
			res, err := m.Recall(ctx, RecallRequest{Question: fmt.Sprintf("compound zq%dx", i), Label: LabelAny, Retrieval: mode})
			if err != nil {
				t.Fatal(err)
			}
			found := slices.ContainsFunc(res.Spans, func(s Span) bool { return s.Provenance.DOI == paper(i).DOI })
			if want := i%2 == 1; found != want {
				t.Errorf("%s recall of paper %d: found %v, want %v", mode, i, found, want)
			}
		}
	}
}

// TestIndexSeesAnyDeletion deletes a paper's vectors behind the library's
// back, in SQL: the trigger on node_vectors tells the warm index, which must
// stop finding the paper.
func TestIndexSeesAnyDeletion(t *testing.T) {
	ctx := context.Background()
	m, err := Open(ctx, testdb.Path(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for i := range 3 {
		if _, _, err := m.StorePaper(ctx, PaperInput{DOI: fmt.Sprintf("10.1/s%d", i), Title: fmt.Sprintf("Study %d", i),
			Text: fmt.Sprintf("Marker qv%dz lowered blood pressure by %d mmHg.", i, 5+i)}); err != nil {
			t.Fatal(err)
		}
	}
	find := func() int {
		res, err := m.Recall(ctx, RecallRequest{Question: "marker qv1z", Label: LabelAny, Retrieval: RetrievalLexical})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, s := range res.Spans {
			if s.Provenance.DOI == "10.1/s1" {
				n++
			}
		}
		return n
	}
	if find() == 0 {
		t.Fatal("stored paper not found")
	}
	if _, err := m.files.Write.ExecContext(ctx, `DELETE FROM node_vectors WHERE node_id IN
		(SELECT n.id FROM nodes n JOIN papers p ON p.id = n.owner_id AND n.kind = 'paper' WHERE p.doi = '10.1/s1')`); err != nil {
		t.Fatal(err)
	}
	if n := find(); n != 0 {
		t.Fatalf("found %d spans of a paper whose vectors were deleted", n)
	}
}

// TestIndexEviction bounds the index to fewer nodes than two workspaces
// hold: searching one drops the other, least recently used, which is
// reloaded, with the same results, when searched again.
func TestIndexEviction(t *testing.T) {
	ctx := context.Background()
	m, err := Open(ctx, testdb.Path(t), &Options{IndexMaxNodes: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.index.maxNodes != 1 {
		t.Fatalf("Options.IndexMaxNodes 1 gave an index bound of %d", m.index.maxNodes)
	}
	for _, org := range []string{"lab-a", "lab-b"} {
		if _, _, err := m.Workspace(org).StorePaper(ctx, PaperInput{DOI: "10.1/" + org, Title: "Sleep and memory in " + org,
			Text: "Sleep deprivation reduced recall accuracy by 30% in adults. Naps restored it within a week."}); err != nil {
			t.Fatal(err)
		}
	}
	var perWorkspace int
	if err := m.db.QueryRowContext(ctx, `SELECT count(*) FROM nodes WHERE org_id = 'lab-a'`).Scan(&perWorkspace); err != nil {
		t.Fatal(err)
	}
	m.index.maxNodes = perWorkspace + 1 // room for one workspace, not two
	recall := func(org string) []Span {
		res, err := m.Workspace(org).Recall(ctx, RecallRequest{Question: "does sleep deprivation reduce recall", Label: LabelAny})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Spans) == 0 {
			t.Fatalf("%s: nothing recalled", org)
		}
		return res.Spans
	}
	loaded := func() []string {
		m.index.mu.Lock()
		defer m.index.mu.Unlock()
		var out []string
		for org := range m.index.orgs {
			out = append(out, org)
		}
		slices.Sort(out)
		return out
	}
	first := recall("lab-a")
	if got := loaded(); !slices.Equal(got, []string{"lab-a"}) {
		t.Fatalf("loaded %v after searching lab-a", got)
	}
	recall("lab-b")
	if got := loaded(); !slices.Equal(got, []string{"lab-b"}) {
		t.Fatalf("loaded %v after searching lab-b with room for one workspace", got)
	}
	if again := recall("lab-a"); !cmp.Equal(first, again) {
		t.Fatalf("lab-a after reloading:\n%s", cmp.Diff(first, again))
	}
	if got := loaded(); !slices.Equal(got, []string{"lab-a"}) {
		t.Fatalf("loaded %v after searching lab-a again", got)
	}
}

// BenchmarkIndexLoad loads a workspace's part of the node index from
// SQLite, as the first search after a start or an eviction does.
func BenchmarkIndexLoad(b *testing.B) {
	m, _, _ := scifactMemory(b, 1000)
	ctx := context.Background()
	var nodes int
	for b.Loop() {
		m.index.mu.Lock()
		clear(m.index.orgs)
		m.index.mu.Unlock()
		p, err := m.index.part(ctx, m.db, m.org)
		if err != nil {
			b.Fatal(err)
		}
		nodes = len(p.ids)
	}
	b.ReportMetric(float64(nodes), "nodes")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(nodes), "µs/node")
	// The heap a loaded part holds, per node.
	m.index.mu.Lock()
	clear(m.index.orgs)
	m.index.mu.Unlock()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p, err := m.index.part(ctx, m.db, m.org)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(p)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(nodes), "heap-B/node")
}

// TestAppendInt8Rounds checks the int8 quantisation against math.Round on
// random unit vectors, and that the scale restores each component within
// half a step.
func TestAppendInt8Rounds(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		v := make([]float32, 64)
		for i := range v {
			v[i] = float32(rnd.NormFloat64())
		}
		normalize(v)
		q, scale := appendInt8(nil, v)
		var top float32
		for _, x := range v {
			top = max(top, x, -x)
		}
		for i, x := range v {
			if want := int8(math.Round(float64(x * (127 / top)))); q[i] != want {
				t.Fatalf("component %d = %v: got %d, want %d", i, x, q[i], want)
			}
			if d := math.Abs(float64(float32(q[i])*scale - x)); d > float64(scale)/2+1e-7 {
				t.Fatalf("component %d = %v restored as %v", i, x, float32(q[i])*scale)
			}
		}
	}
}
