package papermem_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testutil"
)

// TestTenancy stores data in one workspace and checks that a second
// workspace sees nothing of it through any read path.
func TestTenancy(t *testing.T) {
	m := mustOpen(t)
	a, b := m.Workspace("acme"), m.Workspace("globex")
	mustStore(t, a, vitaminD)
	if _, err := a.StoreAnalysis(ctx, papermem.Analysis{DOI: vitaminD.DOI, Markdown: "# Verdict\nThe trial shows no effect of vitamin D on fractures."}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Remember(ctx, "u1", papermem.NoteInput{Text: "I prefer vitamin D trials over cohort studies"}); err != nil {
		t.Fatal(err)
	}
	mustStore(t, b, papermem.PaperInput{DOI: "10.2000/other", Title: "Unrelated", Text: "Graph neural networks improve molecule property prediction by 5%."})

	q := "vitamin D fracture trial"
	for _, label := range []string{"", "Any", "Paper", "Passage", "Analysis"} {
		for _, mode := range []papermem.Retrieval{papermem.RetrievalHybrid, papermem.RetrievalLexical, papermem.RetrievalVector} {
			res, err := b.Recall(ctx, papermem.RecallRequest{Question: q, Label: label, Retrieval: mode})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range res.Spans {
				if s.Provenance.DOI != "10.2000/other" {
					t.Errorf("label %q mode %q: workspace globex recalled %+v", label, mode, s)
				}
			}
		}
	}
	papers, err := b.RecallPapers(ctx, papermem.PaperRecallRequest{Query: q})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range papers {
		if p.DOI != "10.2000/other" {
			t.Errorf("RecallPapers in globex returned %s", p.DOI)
		}
	}
	if ok, _ := b.PaperExists(ctx, vitaminD.DOI); ok {
		t.Error("PaperExists sees another workspace's paper")
	}
	if _, err := b.Paper(ctx, vitaminD.DOI); papermem.ErrorCode(err) != papermem.ENOTFOUND {
		t.Errorf("Paper: err = %v, want ENOTFOUND", err)
	}
	if _, err := b.Analysis(ctx, vitaminD.DOI); papermem.ErrorCode(err) != papermem.ENOTFOUND {
		t.Errorf("Analysis: err = %v, want ENOTFOUND", err)
	}
	if _, err := b.FetchPaper(ctx, vitaminD.DOI); papermem.ErrorCode(err) != papermem.ENOTFOUND {
		t.Errorf("FetchPaper: err = %v, want ENOTFOUND", err)
	}
	if err := b.DeletePaper(ctx, vitaminD.DOI); papermem.ErrorCode(err) != papermem.ENOTFOUND {
		t.Errorf("DeletePaper: err = %v, want ENOTFOUND", err)
	}
	if res, _ := b.RecallUser(ctx, "u1", papermem.UserRecallRequest{Question: "vitamin D trials"}); len(res.Spans) != 0 {
		t.Errorf("RecallUser in globex returned %+v", res.Spans)
	}
	if err := b.Forget(ctx, "u1", "anything"); papermem.ErrorCode(err) != papermem.ENOTFOUND {
		t.Errorf("Forget: err = %v, want ENOTFOUND", err)
	}
	// The first workspace still has everything.
	if ok, _ := a.PaperExists(ctx, vitaminD.DOI); !ok {
		t.Error("acme lost its paper")
	}
}

// TestRecallExcludesUserMemories checks that workspace recall never returns
// a user's private memories.
func TestRecallExcludesUserMemories(t *testing.T) {
	m := mustOpen(t)
	if _, err := m.Remember(ctx, "alice", papermem.NoteInput{Text: "Alice's secret: the zebrafish assay failed twice"}); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []papermem.Retrieval{papermem.RetrievalHybrid, papermem.RetrievalLexical, papermem.RetrievalVector} {
		res, err := m.Recall(ctx, papermem.RecallRequest{Question: "zebrafish assay failed", Label: "Any", Retrieval: mode})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Spans) != 0 {
			t.Errorf("mode %q: workspace recall returned a user memory: %+v", mode, res.Spans)
		}
	}
	if res, _ := m.RecallUser(ctx, "bob", papermem.UserRecallRequest{Question: "zebrafish assay"}); len(res.Spans) != 0 {
		t.Errorf("bob recalled alice's memory: %+v", res.Spans)
	}
}

func TestDeletePaper(t *testing.T) {
	m := mustOpen(t)
	mustStore(t, m, vitaminD)
	if _, err := m.StoreAnalysis(ctx, papermem.Analysis{DOI: vitaminD.DOI, Markdown: "The trial convincingly shows vitamin D does not prevent fractures."}); err != nil {
		t.Fatal(err)
	}
	if err := m.DeletePaper(ctx, "DOI:10.1000/VITD"); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []papermem.Retrieval{papermem.RetrievalHybrid, papermem.RetrievalLexical, papermem.RetrievalVector} {
		res, err := m.Recall(ctx, papermem.RecallRequest{Question: "vitamin D fracture risk trial", Label: "Any", Retrieval: mode})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Spans) != 0 {
			t.Errorf("mode %q: deleted paper recalled: %+v", mode, res.Spans)
		}
	}
	if ok, _ := m.PaperExists(ctx, vitaminD.DOI); ok {
		t.Error("deleted paper exists")
	}
	if _, err := m.Analysis(ctx, vitaminD.DOI); papermem.ErrorCode(err) != papermem.ENOTFOUND {
		t.Errorf("analysis of a deleted paper: err = %v", err)
	}
	if err := m.DeletePaper(ctx, vitaminD.DOI); papermem.ErrorCode(err) != papermem.ENOTFOUND {
		t.Errorf("second delete: err = %v, want ENOTFOUND", err)
	}
}

// TestTwoHandles opens one database twice, as two processes would, and
// checks that each sees the other's writes and deletions in both in-process
// searches (BM25 and vectors).
func TestTwoHandles(t *testing.T) {
	path := testdb.Path(t)
	m1, err := papermem.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m1.Close()
	m2, err := papermem.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	modes := []papermem.Retrieval{papermem.RetrievalLexical, papermem.RetrievalVector}
	// Warm m2's node index before m1 writes.
	if _, err := m2.Recall(ctx, papermem.RecallRequest{Question: "anything", Retrieval: papermem.RetrievalVector}); err != nil {
		t.Fatal(err)
	}
	mustStore(t, m1, vitaminD)
	for _, mode := range modes {
		res, err := m2.Recall(ctx, papermem.RecallRequest{Question: "vitamin D fracture risk", Retrieval: mode})
		if err != nil || len(res.Spans) == 0 {
			t.Fatalf("second handle %q recall = %+v, %v", mode, res, err)
		}
	}
	if err := m1.DeletePaper(ctx, vitaminD.DOI); err != nil {
		t.Fatal(err)
	}
	for _, mode := range modes {
		res, err := m2.Recall(ctx, papermem.RecallRequest{Question: "vitamin D fracture risk", Retrieval: mode})
		if err != nil || len(res.Spans) != 0 {
			t.Fatalf("second handle %q recall finds a deleted paper: %+v, %v", mode, res, err)
		}
	}
}

// TestConcurrentHandles stores papers into one workspace through two
// handles at once, as two servers over one PostgreSQL database would,
// while a third handle searches all along: once the writes are done, the
// third handle's node index, which loaded new nodes by id as they were
// committed, holds every paper of both.
func TestConcurrentHandles(t *testing.T) {
	path := testdb.Path(t)
	handles := make([]*papermem.Memory, 3)
	for i := range handles {
		m, err := papermem.Open(ctx, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		handles[i] = m
	}
	const n = 30
	var wg sync.WaitGroup
	for w, m := range handles[:2] {
		wg.Go(func() {
			for i := range n {
				in := vitaminD
				in.DOI = fmt.Sprintf("10.1000/writer%d.%d", w, i)
				if _, _, err := m.StorePaper(ctx, in); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	reader := handles[2]
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for searching := true; searching; {
		select {
		case <-done:
			searching = false
		default:
		}
		if _, err := reader.Recall(ctx, papermem.RecallRequest{Question: "vitamin D fracture", Retrieval: papermem.RetrievalVector}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := reader.RecallPapers(ctx, papermem.PaperRecallRequest{Query: "vitamin D fracture risk", Limit: 100, Retrieval: papermem.RetrievalVector})
	if err != nil || len(res) != 2*n {
		t.Fatalf("the reader's index finds %d papers, want %d (%v)", len(res), 2*n, err)
	}
}

// TestStoreDeleteConcurrent stores and deletes one paper through two
// handles at once, over and over, as two servers would: whatever order
// they meet in, no node or vector outlives its paper.
func TestStoreDeleteConcurrent(t *testing.T) {
	path := testdb.Path(t)
	var ms []*papermem.Memory
	for range 2 {
		m, err := papermem.Open(ctx, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		ms = append(ms, m)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 40 {
			in := vitaminD
			in.Text = fmt.Sprintf("%s\n\nRevision %d.", vitaminD.Text, i)
			if _, _, err := ms[0].StorePaper(ctx, in); err != nil {
				t.Error(err)
				return
			}
		}
	})
	wg.Go(func() {
		for range 40 {
			if err := ms[1].DeletePaper(ctx, vitaminD.DOI); err != nil && papermem.ErrorCode(err) != papermem.ENOTFOUND {
				t.Error(err)
				return
			}
		}
	})
	wg.Wait()
	var orphans int
	err := testutil.Raw(t, path, false).QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM nodes n WHERE NOT EXISTS (SELECT 1 FROM papers p WHERE p.org_id = n.org_id AND p.id = n.owner_id)) +
		(SELECT count(*) FROM node_vectors v WHERE NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = v.node_id))`).Scan(&orphans)
	if err != nil || orphans != 0 {
		t.Fatalf("%d nodes or vectors without their paper (%v)", orphans, err)
	}
}
